/**
 * Refusal log lines: the words for each reason, and at most one line per reason per minute per
 * trigger, with how many were refused meanwhile: an unauthenticated sender must not be able to
 * flood n8n's log. No line names a secret, a token or a signature. Pure: no n8n types.
 */
import { BoundedMemory } from '../boundedMemory';
import { SIGNATURE_TOLERANCE_SECONDS } from './signatureHeader';
import type { RefusalReason } from './verdict';

export const REFUSAL_LOG_WINDOW_MS = 60_000;

export class RefusalLog {
	private readonly windows: BoundedMemory<{ suppressed: number }>;

	constructor(windowMs = REFUSAL_LOG_WINDOW_MS, maxKeys = 10_000) {
		// At most 10,000 trigger and reason pairs, each window kept a minute from its logged line.
		this.windows = new BoundedMemory<{ suppressed: number }>(maxKeys, windowMs);
	}

	/** Whether to write a line for this refusal now, and how many like it went unlogged before it. */
	note(key: string, nowMs: number): { log: boolean; suppressed: number } {
		const window = this.windows.get(key, nowMs);
		if (window !== undefined) {
			window.suppressed++;
			return { log: false, suppressed: 0 };
		}
		const ended = this.windows.set(key, { suppressed: 0 }, nowMs);
		return { log: true, suppressed: ended?.suppressed ?? 0 };
	}

	forgetAll(): void {
		this.windows.clear();
	}
}

/** One per n8n process. */
export const refusalLog = new RefusalLog();

/** A refusal in words for the n8n log; `detail` is the credential's own complaint, which holds no secret. */
export function refusalWords(reason: RefusalReason, detail?: string): string {
	switch (reason) {
		case 'no_header':
			return 'the Service-Signature header is missing';
		case 'no_timestamp':
			return 'the Service-Signature header has no t (timestamp) part';
		case 'bad_timestamp':
			return 'the t (timestamp) part of the Service-Signature header is not a single number of unix seconds or milliseconds';
		case 'stale':
			return `the signature timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds old (a replay, or the clocks disagree)`;
		case 'future':
			return `the signature timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds in the future (the clocks disagree)`;
		case 'no_signature':
			return 'the Service-Signature header has no well-formed v1 signature (check the Signature Encoding setting)';
		case 'mismatch':
			return 'no v1 signature matches the body (wrong signing secret, or the body was changed on the way)';
		case 'no_key':
			return 'no signing secret is available to check the signature';
		case 'unit_seconds':
			return 'the t (timestamp) part is in unix seconds, but the credential\'s Signature Timestamp Unit is set to Milliseconds (set it to Detect or Seconds)';
		case 'unit_milliseconds':
			return 'the t (timestamp) part is in unix milliseconds, but the credential\'s Signature Timestamp Unit is set to Seconds (set it to Detect or Milliseconds)';
		case 'secret_encoding':
			return `the signature verifies only with the signing secret read as ${detail ?? 'another encoding'}, which the credential's Secret Encoding setting does not say: set Secret Encoding to ${detail ?? 'Detect'} (or Detect) in the Service API credential`;
		case 'credential':
			return `the Service API credential cannot be used: ${detail ?? ''}`;
		case 'secret':
			// With a detail, the credential's own secret did not decode; without, a stored one.
			return detail !== undefined
				? `the Webhook Signing Secret in the Service API credential cannot be used: ${detail}`
				: 'the stored signing secret cannot be decoded with the credential\'s Secret Encoding setting';
		case 'no_endpoint':
			return 'no webhook endpoint is registered for this trigger (activate the workflow again, or set Webhook Signing Secret in the credential for an endpoint created outside n8n)';
		case 'token_changed':
			return 'the stored signing secret cannot be unsealed with the credential\'s current access token (was the token changed?) and this n8n process does not hold it. The trigger registers a new endpoint on its own, at most once an hour (the log and the execution list say when); if that keeps failing, deactivate and activate this workflow';
	}
}
