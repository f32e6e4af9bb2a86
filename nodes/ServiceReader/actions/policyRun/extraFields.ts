/**
 * Reads a JSON parameter that must hold an object of extra request fields (e.g. a policy run's
 * options). Pure: no n8n types. Refused before anything is sent, so a typo never reaches the Service.
 */

export type ExtraFieldsResult = { ok: true; fields: Record<string, unknown> } | { ok: false; problem: string };

/**
 * `value` is what n8n hands over for a JSON parameter: usually text, or an object when an
 * expression already produced one. Empty text means no extra fields. Keys in `reserved` are refused
 * because the node sets them from their own parameters.
 */
export function parseExtraFields(label: string, value: unknown, reserved: string[] = []): ExtraFieldsResult {
	let parsed: unknown = value;
	if (value === undefined || value === null) return { ok: true, fields: {} };
	if (typeof value === 'string') {
		if (value.trim() === '') return { ok: true, fields: {} };
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			return {
				ok: false,
				problem: `${label} is not valid JSON (${(error as Error).message}): enter a JSON object such as {"policy": "standard"}.`,
			};
		}
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'a list' : typeof parsed;
		return { ok: false, problem: `${label} must be a JSON object such as {"policy": "standard"}, not ${kind}.` };
	}
	const clash = Object.keys(parsed).filter((key) => reserved.includes(key));
	if (clash.length > 0) {
		return {
			ok: false,
			problem: `${label} must not contain ${clash.map((k) => `"${k}"`).join(', ')}: the node sets ${clash.length > 1 ? 'these' : 'it'} from its own field.`,
		};
	}
	return { ok: true, fields: parsed as Record<string, unknown> };
}
