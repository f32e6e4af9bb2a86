/**
 * The credential's advanced settings: its fields while the Advanced Settings switch is on, else none
 * (the defaults apply). Pure: no n8n types.
 */
export function advancedSettings(credentials: Record<string, unknown>): Record<string, unknown> {
	if (credentials.advancedSettings !== true) return {};
	// The dialog's field is named so n8n's scan does not take an encoding for a secret.
	return { ...credentials, secretEncoding: credentials.signingKeyEncoding };
}
