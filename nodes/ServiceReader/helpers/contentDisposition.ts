/**
 * The file name a response offers in Content-Disposition. Pure: no n8n types.
 * Handles `filename*=UTF-8''...` (RFC 6266/5987, preferred) and quoted or bare `filename=`.
 * Directory parts are removed so a name can never point outside the file itself; `redact` takes the
 * access token out of the decoded name first.
 */
export function fileNameFromContentDisposition(header: string | undefined, redact: (text: string) => string = (text) => text): string | undefined {
	if (!header) return undefined;
	let name: string | undefined;
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			name = decodeURIComponent(extended[2].trim());
		} catch {
			name = undefined;
		}
	}
	if (name === undefined) {
		const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
		const bare = /filename\s*=\s*([^;"\s]+)/i.exec(header);
		name = quoted ? quoted[1].replace(/\\(.)/g, '$1') : bare?.[1];
	}
	if (name === undefined) return undefined;
	// Redacted whole, before directory parts go: a token holding '/' must not survive in part.
	const base = redact(name).split(/[\\/]/).pop()?.trim() ?? '';
	return base === '' || base === '.' || base === '..' ? undefined : base;
}
