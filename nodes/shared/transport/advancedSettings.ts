/**
 * The credential's advanced settings: its fields while the Advanced Settings switch is on, else none
 * (the defaults apply). Pure: no n8n types.
 */
export function advancedSettings(credentials: Record<string, unknown>): Record<string, unknown> {
	return credentials.advancedSettings === true ? credentials : {};
}
