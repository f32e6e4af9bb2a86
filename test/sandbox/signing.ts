import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` then base64 of 32 random key bytes (README assumption). */
export function newSigningSecret(): string {
	return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a secret: base64-decoded after the `whsec_` prefix. */
export function secretKey(secret: string): Buffer {
	return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

/** `Service-Signature` value: t in unix seconds, v1 lower-case hex HMAC-SHA256 over `t.body`. */
export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
	const v1 = createHmac('sha256', secretKey(secret))
		.update(`${timestampSeconds}.`)
		.update(rawBody)
		.digest('hex');
	return `t=${timestampSeconds},v1=${v1}`;
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
