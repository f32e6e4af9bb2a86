import { createHmac, randomBytes } from 'node:crypto';

/**
 * A Service event body (README Assumptions) padded to `size` bytes with an extra field, so the
 * verifier benchmarks hash the same amount of data on every run.
 */
export function eventBody(size: number, alertId = `alt_${randomBytes(8).toString('hex')}`): Buffer {
	const event = {
		event_type: 'ledger_high',
		alert_id: alertId,
		ids: { organisation: 'KE-P0000001' },
		severity: 'high',
		occurred_at: new Date().toISOString(),
		padding: '',
	};
	const bare = Buffer.byteLength(JSON.stringify(event));
	if (bare > size) throw new Error(`An event body needs at least ${bare} bytes; asked for ${size}.`);
	event.padding = 'x'.repeat(size - bare);
	return Buffer.from(JSON.stringify(event));
}

/** A new signing secret as the sandbox issues them: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): { secret: string; key: Buffer } {
	const key = randomBytes(32);
	return { secret: `whsec_${key.toString('base64')}`, key };
}

/** `Service-Signature` for a body: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">. */
export function serviceSignature(key: Buffer, body: Buffer, timestamp = Math.floor(Date.now() / 1000)): string {
	const v1 = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest('hex');
	return `t=${timestamp},v1=${v1}`;
}
