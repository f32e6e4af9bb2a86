/**
 * Reads the Service API credential into the settings the nodes use, with the documented
 * defaults for what the spec leaves "not shown" (README, Assumptions). Pure: no n8n types.
 */

export interface ServiceSettings {
	/** Base URL without a trailing slash. */
	baseUrl: string;
	cursorParameter: string;
	/** Sent only when both name and size are set. */
	pageSize?: { parameter: string; size: number };
	secretEncoding: 'base64' | 'hex' | 'raw';
	signatureEncoding: 'hex' | 'base64';
	/** Signing secret of an endpoint created outside n8n; takes precedence over a stored one. */
	webhookSigningSecret?: string;
}

/** The settings, or the problem with the credential in words. */
export type SettingsResult = { settings: ServiceSettings; problem?: undefined } | { problem: string };

export function readServiceSettings(credentials: Record<string, unknown>): SettingsResult {
	const rawBaseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	if (!URL.canParse(rawBaseUrl)) {
		return {
			problem: `The Base URL "${rawBaseUrl}" in the Service API credential is not a valid URL. Enter your Service's address, e.g. https://service.example.com.`,
		};
	}
	if (new URL(rawBaseUrl).protocol !== 'https:') {
		return {
			problem: `The Base URL "${rawBaseUrl}" in the Service API credential must start with https://: the Service is reached over HTTPS only.`,
		};
	}
	const advanced = (credentials.advanced ?? {}) as Record<string, unknown>;
	const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
	const pageSizeParameter = text(advanced.pageSizeParameter);
	const size = Number(advanced.pageSize ?? 100);
	const settings: ServiceSettings = {
		baseUrl: rawBaseUrl.replace(/\/+$/, ''),
		cursorParameter: text(advanced.cursorParameter) || 'cursor',
		pageSize:
			pageSizeParameter && Number.isInteger(size) && size > 0
				? { parameter: pageSizeParameter, size }
				: undefined,
		secretEncoding: (['base64', 'hex', 'raw'] as const).find((e) => e === advanced.secretEncoding) ?? 'base64',
		signatureEncoding: (['hex', 'base64'] as const).find((e) => e === advanced.signatureEncoding) ?? 'hex',
		webhookSigningSecret: text(advanced.webhookSigningSecret) || undefined,
	};
	return { settings };
}
