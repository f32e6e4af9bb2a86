import { verifyServiceSignature } from '../../nodes/ServiceTrigger/verify/webhookSignature';
import { newSigningSecret, secretKey, signatureHeader } from '../sandbox/signing';

/**
 * Property test: over 12,000 generated and mutated deliveries the verifier accepts exactly the
 * genuinely signed ones and never throws. Seeded, so a failure is reproducible.
 */

function prng(seed: number): () => number {
	// mulberry32
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const random = prng(0x5e71ce);
const int = (max: number) => Math.floor(random() * max);
const pick = <T>(values: readonly T[]): T => values[int(values.length)];

const secret = newSigningSecret();
const key = secretKey(secret);
const otherSecret = newSigningSecret();
const now = 1_760_000_000;
const HEX = '0123456789abcdef';

function randomBody(): Buffer {
	const kind = int(4);
	if (kind === 0) return Buffer.from(JSON.stringify({ event_type: 'ledger_high', alert_id: `al_${int(1e9)}`, ids: { organisation: `KE-${int(1e4)}` } }));
	if (kind === 1) return Buffer.from(Array.from({ length: int(64) }, () => int(256)));
	if (kind === 2) return Buffer.alloc(0);
	return Buffer.from('é\u0000{"a":1}\r\n'.repeat(int(5)));
}

function randomText(length: number): string {
	const alphabet = ['t', 'v', '1', '=', ',', ' ', '\t', '0', '9', 'a', 'f', 'Z', '-', '.', 'é', '\u0000', 'v1=', 't='];
	return Array.from({ length }, () => pick(alphabet)).join('');
}

/** A genuinely signed header, possibly with whitespace, extra invalid v1 values and reordering. */
function genuineHeader(body: Buffer, t: number): string {
	const v1 = /v1=([0-9a-f]+)/.exec(signatureHeader(secret, t, body))![1];
	const parts = [`t=${t}`, `v1=${v1}`];
	for (let i = int(3); i > 0; i--) parts.push(`v1=${/v1=([0-9a-f]+)/.exec(signatureHeader(otherSecret, t, body))![1]}`);
	if (random() < 0.3) parts.push(`v0=${randomText(8).replace(/[,=]/g, '')}`);
	const shuffled = parts.sort(() => random() - 0.5);
	const pad = () => pick(['', ' ', '  ', '\t']);
	return shuffled.map((p) => `${pad()}${p.replace('=', `${pad()}=${pad()}`)}${pad()}`).join(',');
}

/** A change to a genuine delivery that must make it fail. Returns the mutated header and body. */
function mutate(header: string, body: Buffer, t: number): { header: string; body: Buffer; what: string } {
	const v1 = /v1=([0-9a-f]{64})/.exec(signatureHeader(secret, t, body))![1];
	const plain = `t=${t},v1=${v1}`;
	switch (int(9)) {
		case 0: {
			if (body.length === 0) return { header, body: Buffer.from(' '), what: 'body grew' };
			const copy = Buffer.from(body);
			const at = int(copy.length);
			copy[at] = (copy[at] + 1 + int(255)) % 256;
			return { header, body: copy, what: 'body byte changed' };
		}
		case 1:
			return { header, body: Buffer.concat([body, Buffer.from(pick([' ', '\n', '}', 'x']))]), what: 'body extended' };
		case 2:
			return { header: plain.replace(`t=${t}`, `t=${t + pick([-2, -1, 1, 2, 7])}`), body, what: 't changed' };
		case 3: {
			const at = int(64);
			const lower = v1[at];
			const replacement = pick([...HEX].filter((c) => c !== lower) as string[]);
			return { header: `t=${t},v1=${v1.slice(0, at)}${replacement}${v1.slice(at + 1)}`, body, what: 'v1 digit changed' };
		}
		case 4:
			return { header: `t=${t},v1=${v1.slice(0, int(64))}`, body, what: 'v1 truncated' };
		case 5:
			return { header: `t=${t},v1=${v1}${pick([...HEX])}${pick([...HEX])}`, body, what: 'v1 extended' };
		case 6:
			return { header: `v1=${v1}`, body, what: 't removed' };
		case 7:
			return { header: `t=${t + pick([-1, 1]) * (301 + int(100000))},v1=${v1}`, body, what: 't out of tolerance' };
		default:
			return { header: signatureHeader(otherSecret, t, body), body, what: 'wrong secret' };
	}
}

function verify(header: string | string[] | undefined, body: Buffer) {
	return verifyServiceSignature({ header, rawBody: body, keys: [key], signatureEncoding: 'hex', nowSeconds: now });
}

describe('verifyServiceSignature under generated input', () => {
	it('accepts exactly the genuinely signed deliveries among 12,000 and never throws', () => {
		const wrong: string[] = [];
		let genuine = 0;
		let refused = 0;
		for (let i = 0; i < 12_000; i++) {
			const body = randomBody();
			const t = now + int(601) - 300;
			const header = genuineHeader(body, t);
			const kind = i % 4;
			let input: { header: string | string[] | undefined; body: Buffer; what: string };
			let expectOk: boolean;
			if (kind === 0) {
				input = { header, body, what: 'genuine' };
				expectOk = true;
			} else if (kind === 3) {
				const length = int(200);
				input = { header: pick([randomText(length), [randomText(length), randomText(9)], undefined]), body, what: 'random header' };
				expectOk = false;
			} else {
				input = mutate(header, body, t);
				expectOk = false;
			}
			let ok: boolean;
			try {
				ok = verify(input.header, input.body).ok;
			} catch (error) {
				wrong.push(`#${i} ${input.what}: threw ${(error as Error).message}`);
				continue;
			}
			if (ok !== expectOk) wrong.push(`#${i} ${input.what}: ${ok ? 'accepted' : 'refused'} ${JSON.stringify(input.header)}`);
			if (ok) genuine++;
			else refused++;
		}
		expect(wrong).toEqual([]);
		expect(genuine).toBe(3000);
		expect(refused).toBe(9000);
	});
});
