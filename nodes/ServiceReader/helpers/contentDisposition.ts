/**
 * The file name a response offers in Content-Disposition. Pure: no n8n types.
 * Handles `filename*=UTF-8''...` (RFC 6266/5987, preferred) and quoted or bare `filename=`, read in one pass.
 * Directory parts are removed so a name can never point outside the file itself; `redact` (the
 * credential's `redactFileName`: also the token with `/` and `\` made `_`) takes the access token out
 * of the decoded name before and of what is left after.
 */
export function fileNameFromContentDisposition(header: string | undefined, redact: (text: string) => string = (text) => text): string | undefined {
	if (!header) return undefined;
	const parameters = dispositionParameters(header);
	let name: string | undefined;
	const extended = parameters.get('filename*');
	if (extended !== undefined) name = extendedValue(extended);
	if (name === undefined) name = parameters.get('filename');
	if (name === undefined) return undefined;
	// Redacted whole, before directory parts go: a token holding '/' must not survive in part.
	const base = redact(redact(name).split(/[\\/]/).pop()?.trim() ?? '');
	return base === '' || base === '.' || base === '..' ? undefined : base;
}

// RFC 7230 whitespace, and what JavaScript's trim() also removes: a name is trimmed as before.
const isSpace = (char: string) => char.trim() === '';

/**
 * The `name=value` parameters after the disposition type, read in one pass (the header is the
 * Service's text: no backtracking regex). Names lower-cased, the first of each kept; a quoted value
 * unescaped, an unterminated one read to the end; a bare value runs to the next `;`, trimmed.
 */
function dispositionParameters(header: string): Map<string, string> {
	const parameters = new Map<string, string>();
	const end = header.length;
	let index = 0;
	while (index < end) {
		const nameStart = index;
		while (index < end && header[index] !== '=' && header[index] !== ';') index++;
		if (header[index] !== '=') {
			index++;
			continue;
		}
		const name = header.slice(nameStart, index).trim().toLowerCase();
		index++;
		while (index < end && isSpace(header[index])) index++;
		let value = '';
		if (header[index] === '"') {
			index++;
			while (index < end && header[index] !== '"') {
				if (header[index] === '\\' && index + 1 < end) index++;
				value += header[index++];
			}
			index++;
		} else {
			const valueStart = index;
			while (index < end && header[index] !== ';') index++;
			value = header.slice(valueStart, index).trim();
		}
		if (!parameters.has(name)) parameters.set(name, value);
		while (index < end && header[index] !== ';') index++;
	}
	return parameters;
}

/** `charset'language'percent-encoded` (RFC 5987) decoded, or undefined when it is not that. */
function extendedValue(value: string): string | undefined {
	const first = value.indexOf("'");
	const second = first === -1 ? -1 : value.indexOf("'", first + 1);
	const encoded = second === -1 ? '' : value.slice(second + 1).trim();
	if (encoded === '') return undefined;
	try {
		return decodeURIComponent(encoded);
	} catch {
		return undefined;
	}
}
