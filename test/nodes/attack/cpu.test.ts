import { postDelivery } from '../../harness';
import { parseSignatureHeader, type ScanSteps } from '../../../nodes/ServiceTrigger/verify/signatureHeader';
import { refusalLog } from '../../../nodes/ServiceTrigger/verify/refusalLog';
import { signatureHeader } from '../../sandbox/signing';
import { useTriggerSetup } from '../trigger/setup';

/**
 * Issue 31, the attacker's second round, CPU: "What a sender writes costs time in proportion to its
 * length" (docs/token-and-limits.md), counted in steps (no timing: speed is for benchmarks), on header
 * shapes the first round's property test does not draw; and each such header, sent to the real trigger
 * with a real signature beside it, changes nothing of the verdict.
 */

const HEADER_LIMIT = 16 * 1024;

function stepsOf(header: string): number {
	const steps: ScanSteps = { count: 0 };
	parseSignatureHeader(header, steps);
	return steps.count;
}

/** Shapes the first round's property test does not draw: other Unicode whitespace, long keys, chains of key=. */
const SHAPES: Array<(n: number) => string> = [
	(n) => '\u2028\u3000\u000b\u000c\r\u205f'.repeat(n / 6),
	(n) => `${'t'.repeat(n - 1)}=`,
	(n) => `${'v1='.repeat(n / 3)}`,
	(n) => `${'t = '.repeat(n / 4)}`,
	(n) => `${'t\t=\t='.repeat(n / 5)}`,
	(n) => `${'a=b=c '.repeat(n / 6)}`,
	(n) => `t=1,${'\ufeff,'.repeat(n / 2 - 2)}v1`,
	(n) => `${'_-'.repeat(n / 2 - 1)} =`,
	(n) => `${'= '.repeat(n / 2)}`,
];

describe('attack, CPU: "the `Service-Signature` header (each character looked at no more than 6 times ... twice the length costs at most 2.2 times the steps)"', () => {
	test.each(SHAPES.map((shape, i) => [i, shape] as const))('shape %i at n8n\'s 16 KiB header limit', (_i, shape) => {
		const full = shape(HEADER_LIMIT - 16);
		const half = shape((HEADER_LIMIT - 16) / 2);
		expect(stepsOf(full)).toBeLessThanOrEqual(6 * full.length + 8);
		expect(stepsOf(full)).toBeLessThanOrEqual(2.2 * stepsOf(half) + 32);
	});
});

describe('attack, the same shapes at the real trigger: "verifies Service-Signature before anything else"', () => {
	const setup = useTriggerSetup({ activate: true });
	beforeEach(() => refusalLog.forgetAll());

	// Only what HTTP can carry in a header (tab, visible ASCII, obs-text): the others are read only by the unit above.
	const sendable = SHAPES.map((shape, i) => [i, shape] as const).filter(([, shape]) => [...shape(64)].every((c) => c === '\t' || (c >= ' ' && c <= '\u00ff' && c !== '\u007f')));
	test.each(sendable)('shape %i after a correct signature: accepted once; alone: refused with 401', async (i, shape) => {
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const alertId = `al_shape_${i}`;
		const payload = JSON.stringify({ event_type: 'ledger_high', alert_id: alertId, ids: { organisation: 'KE-1001' }, severity: 'high', occurred_at: '2026-01-01T00:00:00.000Z' });
		const good = signatureHeader(secret, Math.floor(Date.now() / 1000), payload);
		// Room for the rest of the request's headers under n8n's 16 KiB limit.
		const filler = shape(12 * 1024);
		const alone = await postDelivery(url, { headers: { 'Service-Signature': filler }, body: payload, ca: setup.receiverCa });
		expect(alone.status).toBe(401);
		const after = await postDelivery(url, { headers: { 'Service-Signature': `${good},${filler}` }, body: payload, ca: setup.receiverCa });
		// A shape that adds its own t= makes the header ambiguous: refused, never passed on wrongly.
		expect([200, 401]).toContain(after.status);
		expect(await setup.executionsOf(alertId)).toHaveLength(after.status === 200 ? 1 : 0);
	});
});
