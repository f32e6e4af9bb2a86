/**
 * The alert_id as the Service sent it, in bytes (issue 31): decoding a body as UTF-8 turns every
 * invalid byte into U+FFFD, so two ids differing only there would read as one and the second alert
 * would be taken for a redelivery. Pure: no n8n types; one pass over the body, no regex.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isJsonSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * Base64 of the bytes of the body's top-level `alert_id` (the last one, as JSON.parse keeps) when
 * decoding them loses something: a string's bytes that are not UTF-8 or an escaped lone surrogate
 * (which n8n's database would store as U+FFFD), or a number whose digits a JavaScript number does not
 * keep (an integer beyond 2^53 would round onto its neighbour). Undefined for every other id: those
 * compare as their text, as before.
 */
export function alertIdBytesWhenNotText(body: Buffer): string | undefined {
	const value = topLevelValueBytes(body, 'alert_id');
	if (value === undefined) return undefined;
	if (value[0] !== QUOTE) return isNumberStart(value[0]) && !numberKeepsDigits(value) ? value.toString('base64') : undefined;
	const sent = value.subarray(1, value.length - 1);
	const text = sent.toString('utf8');
	const lossless = Buffer.from(text, 'utf8').equals(sent) && wellFormed(keyText(Buffer.from(`"${text}"`)) ?? '\ud800');
	return lossless ? undefined : sent.toString('base64');
}

const isNumberStart = (byte: number | undefined) => byte === 0x2d || (byte !== undefined && byte >= 0x30 && byte <= 0x39);

/** Whether the number as JSON.parse reads it writes back as the very digits sent. */
function numberKeepsDigits(token: Buffer): boolean {
	const text = token.toString('latin1');
	try {
		return JSON.stringify(JSON.parse(text)) === text;
	} catch {
		return true;
	}
}

/** No lone surrogate (String.prototype.isWellFormed, which Node 20.0 lacks). */
function wellFormed(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0xd800 && code <= 0xdbff) {
			const next = text.charCodeAt(i + 1);
			if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
			i++;
		} else if (code >= 0xdc00 && code <= 0xdfff) return false;
	}
	return true;
}

/** The raw bytes of the value of the last top-level member `name` (a string with its quotes); undefined if none. */
function topLevelValueBytes(body: Buffer, name: string): Buffer | undefined {
	let index = skipSpace(body, 0);
	if (body[index] !== 0x7b) return undefined;
	index = skipSpace(body, index + 1);
	let found: Buffer | undefined;
	while (index < body.length && body[index] === QUOTE) {
		const keyEnd = stringEnd(body, index);
		const key = keyText(body.subarray(index, keyEnd));
		index = skipSpace(body, keyEnd);
		if (body[index] !== 0x3a) return undefined;
		const valueStart = skipSpace(body, index + 1);
		const valueEnd = jsonValueEnd(body, valueStart);
		if (key === name) found = body.subarray(valueStart, valueEnd);
		index = skipSpace(body, valueEnd);
		if (body[index] !== 0x2c) break;
		index = skipSpace(body, index + 1);
	}
	return found;
}

function keyText(token: Buffer): string | undefined {
	try {
		return JSON.parse(token.toString('utf8')) as string;
	} catch {
		return undefined;
	}
}

function skipSpace(body: Buffer, index: number): number {
	while (index < body.length && isJsonSpace(body[index])) index++;
	return index;
}

/** The index after the closing quote of the string starting at `start` (a quote). */
function stringEnd(body: Buffer, start: number): number {
	let index = start + 1;
	while (index < body.length && body[index] !== QUOTE) index += body[index] === BACKSLASH ? 2 : 1;
	return index + 1;
}

/** The index after the JSON value starting at `start`: a string, an object or array (strings inside skipped), or a literal. */
function jsonValueEnd(body: Buffer, start: number): number {
	if (body[start] === QUOTE) return stringEnd(body, start);
	let depth = 0;
	let index = start;
	while (index < body.length) {
		const byte = body[index];
		if (byte === QUOTE) {
			index = stringEnd(body, index);
			continue;
		}
		if (byte === 0x7b || byte === 0x5b) depth++;
		else if (byte === 0x7d || byte === 0x5d) {
			if (depth === 0) return index;
			depth--;
			if (depth === 0) return index + 1;
		} else if (depth === 0 && (byte === 0x2c || isJsonSpace(byte))) return index;
		index++;
	}
	return index;
}
