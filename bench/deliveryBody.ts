import { createHmac, randomBytes } from 'node:crypto';

/**
 * A Service event body (docs/service-choices.md) padded to `size` bytes with an extra field, so the
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

/**
 * A Service-Signature padded to `length` characters (16,000: n8n's server refuses a request whose headers pass
 * 16 KiB in all) with runs of every separator, `=` and blanks, ending in a non-part: what made the reader's old
 * regular expression retry at every separator (issue 31: 200-460 ms a request). Only what HTTP lets through (no line breaks); its `t` and `v1` still read.
 */
export function adversarialSignature(signature: string, length = 16_000): string {
	const runs = [', ', ';\t', ' = ', ',,;;', '\t \t'];
	let header = `${signature},`;
	for (let run = 0; header.length < length - 1; run++) header += runs[Math.floor(run / 800) % runs.length];
	return `${header.slice(0, length - 1)}x`;
}

export const namedEvents = ['share_granted', 'share_revoked', 'report_superseded', 'finding_new', 'ledger_high', 'reader_decision_due'];

/** Companies in the trigger bench's sandbox portfolio (KE-P0000001 on): every event names one, so Add Company Details finds it. */
export const PORTFOLIO_COMPANIES = 2_000;

/** A Service event body as the Service sends it (identifiers only), the nth of a run. */
export function serviceEvent(alertId: string, n: number): Buffer {
	return Buffer.from(
		JSON.stringify({
			event_type: namedEvents[n % namedEvents.length],
			alert_id: alertId,
			ids: { organisation: `KE-P${String((n % PORTFOLIO_COMPANIES) + 1).padStart(7, '0')}` },
			severity: n % 5 === 0 ? 'high' : 'medium',
			occurred_at: new Date().toISOString(),
		}),
	);
}
