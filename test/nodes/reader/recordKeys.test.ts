import { generateKeyPairSync } from 'node:crypto';

import type { VerificationForms } from '../../sandbox/answerShapes';
import { verificationBody } from '../../sandbox/routes/verify';
import { useSandbox } from '../../sandbox/useSandbox';
import { fileItem, READER, runReader } from './helpers';

/**
 * Record > Verify with Check Copy reads the verification by what it holds (docs/service-choices.md:
 * Verification): the public key under any field name, at any depth; two keys whose verdicts differ are
 * named and settled by Verification Fields; a key no check can run with is said so, never as a mismatch.
 */
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const served = () => sandbox.control.record('KE-1004');
const genuine = () => fileItem(served().bytes, `${served().ks}.json`, 'application/json');
const tampered = () => fileItem(Buffer.concat([served().bytes, Buffer.from('\n')]), `${served().ks}.json`, 'application/json');
function answering(body: Record<string, unknown>): void {
	sandbox.control.failRoute({ path: `/v1/public/reports/${served().ks}/verify`, method: 'GET', mode: 'answer', status: 200, contentType: 'application/json', body: JSON.stringify(body) });
}
const verification = (forms: Partial<VerificationForms> = {}) =>
	verificationBody({ ...sandbox.dialect.answers.verification, ...forms }, { ...served(), valid: true, signedAt: '2026-01-01T00:00:00Z' });
const verify = (checkCopy: boolean, extra: Record<string, unknown> = {}) => ({ resource: 'record', operation: 'verify', ks: served().ks, checkCopy, ...extra });

test.each(['public_key_pem', 'verification.key', 'keys'] as const)('the public key under %s: the copy matches; one byte more, it does not', async (keyPlace) => {
	answering(verification({ keyPlace }));
	const matched = await runReader(sandbox, verify(true), { inputItems: [genuine()] });
	expect(matched.error(READER)).toBeUndefined();
	expect(matched.output(READER)[0].json).toMatchObject({ copy_matches: true, ks: served().ks });
	const changed = await runReader(sandbox, verify(true), { inputItems: [tampered()] });
	expect(changed.output(READER)[0].json).toMatchObject({ copy_matches: false });
});

test('two keys the copy verifies differently with: both named, never one picked; Public Key Field settles it', async () => {
	const body = verification({ keyPlace: 'public_key_pem' });
	// Another key of the same kind (a rotation's previous one), which the declared algorithm fits as well.
	const suite = sandbox.dialect.answers.verification.signatureSuite;
	const kind = suite === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: suite === 'ES256' ? 'prime256v1' : 'secp384r1' });
	const other = kind.publicKey.export({ format: 'pem', type: 'spki' }).toString();
	answering({ ...body, previous_public_key_pem: other });
	const asked = await runReader(sandbox, verify(true), { inputItems: [genuine()] });
	expect(asked.output(READER)).toEqual([]);
	expect(asked.error(READER)?.message).toBe("Check Copy could not read the Service's verification: field public_key_pem");
	expect(asked.error(READER)?.description).toContain("has 2 fields that may be the public key (public_key_pem, previous_public_key_pem), and the check's result depends on which: set Public Key Field under Verification Fields of this node");
	// A changed copy verifies with neither: false whichever key, so said as such.
	const changed = await runReader(sandbox, verify(true), { inputItems: [tampered()] });
	expect(changed.output(READER)[0].json).toMatchObject({ copy_matches: false });
	const settled = await runReader(sandbox, verify(true, { verificationFields: { key: 'public_key_pem' } }), { inputItems: [genuine()] });
	expect(settled.output(READER)[0].json).toMatchObject({ copy_matches: true });
});

test('an RSA key over 16,384 bits: the check could not run, said as such, never copy_matches false', async () => {
	const n = Buffer.concat([Buffer.from([0xc1]), Buffer.alloc(2047, 0x5a), Buffer.from([0x01])]);
	answering({ ...verification({ keyPlace: 'public_key' }), algorithm: 'RS256', public_key: { kty: 'RSA', n: n.toString('base64url'), e: 'AQAB' }, signature: Buffer.alloc(2049, 1).toString('base64') });
	const result = await runReader(sandbox, verify(true), { inputItems: [genuine()] });
	expect(result.output(READER)).toEqual([]);
	expect(result.error(READER)?.message).toBe("Check Copy could not read the Service's verification: field public_key");
	expect(result.error(READER)?.description).toContain('is an RSA key of 16392 bits: over 16,384 bits OpenSSL checks no signature, so the check could not run');
	// Without Check Copy the verification passes on as the Service sent it.
	const passed = await runReader(sandbox, verify(false));
	expect(passed.output(READER)[0].json).toMatchObject({ algorithm: 'RS256' });
});
