/**
 * The encodings a sandbox dialect writes its CSV in (docs/service-choices.md): UTF-8 (with the dialect's
 * `bom` choice), UTF-16LE or UTF-16BE with a byte order mark as Excel saves "Unicode Text", windows-1252
 * named in Content-Type. UTF-16 pages name `charset=utf-16`: the mark tells the byte order.
 */
export const ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** windows-1252's 0x80–0x9F (the rest of its upper half is Latin-1's). */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/** The Content-Type of a CSV page in `encoding`. */
export function csvContentType(encoding: Encoding): string {
	return `text/csv; charset=${encoding === 'utf-16le' || encoding === 'utf-16be' ? 'utf-16' : encoding}`;
}

/**
 * `text` in `encoding`, as a page starts; `bom` adds a UTF-8 byte order mark (UTF-16 always has its own,
 * windows-1252 none). A character windows-1252 cannot say is written as `?`, as Excel does.
 */
export function encodeText(text: string, encoding: Encoding, bom = false): Buffer {
	const utf16 = encoding === 'utf-16le' || encoding === 'utf-16be';
	return encodeChunk((utf16 || (bom && encoding === 'utf-8') ? '\uFEFF' : '') + text, encoding);
}

/** `text` in `encoding`, no byte order mark added: a piece of a page. */
export function encodeChunk(text: string, encoding: Encoding): Buffer {
	if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
	if (encoding === 'utf-16le') return Buffer.from(text, 'utf16le');
	if (encoding === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
	return Buffer.from(Array.from(text, (ch) => {
		const code = ch.codePointAt(0)!;
		if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) return code;
		const high = CP1252_HIGH.indexOf(ch);
		return high >= 0 ? 0x80 + high : 0x3f;
	}));
}

/** A whole CSV page in `encoding`, with its Content-Type. */
export function encodeCsv(text: string, encoding: Encoding, bom = false): { bytes: Buffer; contentType: string } {
	return { bytes: encodeText(text, encoding, bom), contentType: csvContentType(encoding) };
}
