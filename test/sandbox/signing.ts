import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` then base64 of 32 random key bytes (docs/service-choices.md). */
export function newSigningSecret(): string {
	return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a secret: 64 hex characters (the alt dialect), else base64 after the `whsec_` prefix. */
export function secretKey(secret: string): Buffer {
	if (/^[0-9a-f]{64}$/.test(secret)) return Buffer.from(secret, 'hex');
	return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

/** How a Service writes `Service-Signature`, where the spec says "not shown" (section 5). */
export interface SignatureFormat {
	/** How `v1` is encoded; hex by default. */
	encoding?: 'hex' | 'base64';
	/** The unit of `t`; seconds by default. */
	unit?: 'seconds' | 'milliseconds';
	/** What stands between the parts; `,` by default. */
	separator?: string;
}

/** `Service-Signature` value: t (unix seconds unless the format says otherwise), v1 the HMAC-SHA256 over `t.body`. */
export function signatureHeader(
	secret: string,
	timestampSeconds: number,
	rawBody: string | Buffer,
	format: 'hex' | 'base64' | SignatureFormat = {},
): string {
	const { encoding = 'hex', unit = 'seconds', separator = ',' } = typeof format === 'string' ? { encoding: format } : format;
	// Milliseconds carry a sub-second part, as a Service's clock would give them.
	const t = unit === 'milliseconds' ? String(timestampSeconds * 1000 + (Date.now() % 1000)) : String(timestampSeconds);
	const v1 = createHmac('sha256', secretKey(secret)).update(`${t}.`).update(rawBody).digest(encoding);
	return `t=${t}${separator}v1=${v1}`;
}

/** Offsets (seconds after the first attempt) of every attempt: 0, then doubling from 60 s, last at 24 h. */
export function retryOffsetsSeconds(windowSeconds = 24 * 60 * 60, firstDelaySeconds = 60): number[] {
	const offsets = [0];
	let delay = firstDelaySeconds;
	let at = 0;
	while (at + delay < windowSeconds) {
		at += delay;
		offsets.push(at);
		delay *= 2;
	}
	offsets.push(windowSeconds);
	return offsets;
}
