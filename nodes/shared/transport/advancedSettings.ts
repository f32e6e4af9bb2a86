/**
 * The credential's advanced settings: its top-level fields while the Advanced Settings switch is on
 * (as the credential dialog saves them), else the `advanced` object of a credential made through
 * n8n's API or import. Pure: no n8n types.
 */
export function advancedSettings(credentials: Record<string, unknown>): Record<string, unknown> {
	// The dialog's field is named so n8n's scan does not take an encoding for a secret.
	if (credentials.advancedSettings === true) return { ...credentials, secretEncoding: credentials.signingKeyEncoding };
	const legacy = credentials.advanced;
	return legacy !== null && typeof legacy === 'object' && !Array.isArray(legacy) ? (legacy as Record<string, unknown>) : {};
}
