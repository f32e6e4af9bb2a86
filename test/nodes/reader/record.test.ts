import type { INodeParameters } from 'n8n-workflow';

import { createHash } from 'node:crypto';

import { useSandbox } from '../../sandbox/useSandbox';
import { publicKeyAs } from '../../sandbox/records';
import { verificationBody } from '../../sandbox/routes/verify';
import { afterFirstAnswer, binaryBytes, fileItem, fileStatus, READER, runReader } from './helpers';

const sandbox = useSandbox();

const recordGet = (ke: string, options: INodeParameters = {}) => ({ resource: 'record', operation: 'get', ke, options });
const verify = (ks: string, checkCopy = false) => ({ resource: 'record', operation: 'verify', ks, checkCopy });
const recordPath = (ke: string) => `/v1/reader/exports/records/${ke}`;
const recordLogEntry = (ke: string) => ({ at: expect.any(String), reader: 'reader', export: 'record', path: recordPath(ke), ke });
const readerRecordLog = () => sandbox.control.accessLog().filter((e) => e.export === 'record');
/** The suites this dialect publishes, in the words of copy_reason (default: SHA-256 and Ed25519; alt: SHA-512 and ES256). */
const suiteWords = () => {
	const { digestSuite, signatureSuite } = sandbox.dialect.answers.verification;
	const digest = `SHA-${digestSuite.slice(3)}`;
	const signature = signatureSuite === 'Ed25519' ? 'Ed25519' : signatureSuite === 'ES256' ? 'ECDSA P-256 SHA-256 (ES256)' : signatureSuite;
	return { digest, signature };
};

describe('Record > Get', () => {
	it('outputs the parsed record and the exact signed bytes as a .json file, logged for reader and company', async () => {
		const result = await runReader(sandbox, recordGet('KE-1009'));

		const served = sandbox.control.record('KE-1009');
		const [item, ...rest] = result.output(READER);
		expect(rest).toEqual([]);
		expect(item).toEqual({
			json: JSON.parse(served.bytes.toString('utf8')),
			binary: {
				data: expect.objectContaining({
					mimeType: 'application/json',
					fileName: 'KS-1009-v1.json',
					fileExtension: 'json',
				}),
			},
			pairedItem: { item: 0 },
		});
		expect(item.json).toMatchObject({ ks: 'KS-1009-v1', ke: 'KE-1009', company_name: 'Société Générale d\'Été' });
		// Byte for byte: the deliberate layout (CRLF, spaces before colons, non-ASCII) survives.
		const stored = await binaryBytes(item.binary!.data);
		expect(stored.equals(served.bytes)).toBe(true);
		expect(createHash('sha256').update(stored).digest('hex')).toBe(served.sha256);

		expect(sandbox.control.requests().map((r) => [r.method, r.path, r.reader, r.status])).toEqual([
			['GET', recordPath('KE-1009'), 'reader', fileStatus(sandbox)],
		]);
		expect(readerRecordLog()).toEqual([recordLogEntry('KE-1009')]);
		expect(sandbox.control.companyAccessLog('KE-1009')).toEqual([recordLogEntry('KE-1009')]);
	});

	it('puts the file in the binary field named in the options', async () => {
		const result = await runReader(sandbox, recordGet('KE-1001', { binaryPropertyName: 'signedRecord' }));
		const [item] = result.output(READER);
		expect(Object.keys(item.binary ?? {})).toEqual(['signedRecord']);
		expect((await binaryBytes(item.binary!.signedRecord)).equals(sandbox.control.record('KE-1001').bytes)).toBe(true);
	});

	// The sandbox's words for an error, as its dialect puts them.
	const serviceWords = (code: string, message: string) => sandbox.dialect.errorWords(code, message).message;

	it('stops with words when the company does not share, and nothing is logged', async () => {
		const before = sandbox.control.accessLog().length;
		const result = await runReader(sandbox, recordGet('KE-1012'));

		expect(result.run.status).toBe('error');
		const error = result.error(READER)!;
		expect(error.message).toBe(`Company KE-1012 does not share with this reader (${sandbox.dialect.notSharedStatus}): the share may have ended`);
		expect(error.description).toBe(
			'The share of KE-1012 was revoked, ended or never granted. Delete or mark the copies you hold of its data; '
				+ 'to do that in the workflow, set Options > When Company Does Not Share to Output Item ({ ke, shared: false }). '
				+ `The Service said: "${serviceWords('not_shared', 'Company KE-1012 does not share its record with this reader, or the share has ended.')}" `
				+ '(GET /v1/reader/exports/records/KE-1012)',
		);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([[recordPath('KE-1012'), sandbox.dialect.notSharedStatus]]);
		expect(sandbox.control.accessLog()).toHaveLength(before);
		expect(sandbox.control.companyAccessLog('KE-1012')).toEqual([]);
	});

	it('outputs { ke, shared: false } for a company that does not share when asked to', async () => {
		const result = await runReader(sandbox, recordGet('KE-1011', { whenNotShared: 'outputItem' }));
		expect(result.output(READER)).toEqual([{ json: { ke: 'KE-1011', shared: false }, pairedItem: { item: 0 } }]);
		expect(sandbox.control.companyAccessLog('KE-1011')).toEqual([]);
	});

	describe('share revoked between two items', () => {
		const items = (ke: string) => [{ json: { ke } }, { json: { ke } }];

		it('first item gets the record, second stops with the share words', async () => {
			const stop = afterFirstAnswer(recordPath('KE-1003'), () => sandbox.control.revokeShare('KE-1003'));
			try {
				const result = await runReader(sandbox, recordGet('={{ $json.ke }}'), { inputItems: items('KE-1003') });

				const error = result.error(READER)!;
				expect(error.message).toBe(`Company KE-1003 does not share with this reader (${sandbox.dialect.notSharedStatus}): the share may have ended`);
				expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
			} finally {
				stop();
			}
			expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
				[recordPath('KE-1003'), fileStatus(sandbox)],
				[recordPath('KE-1003'), sandbox.dialect.notSharedStatus],
			]);
			expect(sandbox.control.companyAccessLog('KE-1003')).toEqual([recordLogEntry('KE-1003')]);
		});

		it('with Output Item, the first item is the record and the second { ke, shared: false }', async () => {
			const stop = afterFirstAnswer(recordPath('KE-1004'), () => sandbox.control.revokeShare('KE-1004'));
			let output;
			try {
				const result = await runReader(sandbox, recordGet('={{ $json.ke }}', { whenNotShared: 'outputItem' }), {
					inputItems: items('KE-1004'),
				});
				output = result.output(READER);
			} finally {
				stop();
			}
			expect(output.map((item) => [item.json.ke, item.json.shared, item.pairedItem])).toEqual([
				['KE-1004', undefined, { item: 0 }],
				['KE-1004', false, { item: 1 }],
			]);
			expect(output[1]).toEqual({ json: { ke: 'KE-1004', shared: false }, pairedItem: { item: 1 } });
			expect((await binaryBytes(output[0].binary!.data)).equals(sandbox.control.record('KE-1004').bytes)).toBe(true);
			expect(sandbox.control.requests().map((r) => r.status)).toEqual([fileStatus(sandbox), sandbox.dialect.notSharedStatus]);
			expect(sandbox.control.companyAccessLog('KE-1004')).toEqual([recordLogEntry('KE-1004')]);
		});
	});

	it('with Continue On Fail, a company that does not share gives an error item paired with its input item', async () => {
		const result = await runReader(sandbox, recordGet('={{ $json.ke }}'), {
			continueOnFail: true,
			inputItems: [{ json: { ke: 'KE-1011' } }, { json: { ke: 'KE-1001' } }],
		});
		const output = result.output(READER);
		expect(output[0]).toEqual({
			json: {
				error: `Company KE-1011 does not share with this reader (${sandbox.dialect.notSharedStatus}): the share may have ended`,
				description: expect.stringContaining('Delete or mark the copies you hold of its data;'),
			},
			pairedItem: { item: 0 },
		});
		expect([output[1].json.ke, output[1].pairedItem]).toEqual(['KE-1001', { item: 1 }]);
		expect(output).toHaveLength(2);
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
			[recordPath('KE-1011'), sandbox.dialect.notSharedStatus],
			[recordPath('KE-1001'), fileStatus(sandbox)],
		]);
	});

	it.each([
		['', 'KE is empty. Enter the KE exactly as the Service shows it. [item 0]'],
		['   ', 'KE is empty. Enter the KE exactly as the Service shows it. [item 0]'],
		['../KE-1001', 'KE "../KE-1001" is malformed: use only letters, digits, ".", "_" and "-". [item 0]'],
		['KE 1001', 'KE "KE 1001" is malformed: use only letters, digits, ".", "_" and "-". [item 0]'],
	])('refuses KE %j before any request', async (ke, message) => {
		// Through an expression: n8n itself refuses a literal empty required field before the node runs.
		const result = await runReader(sandbox, recordGet('={{ $json.ke }}'), { inputItems: [{ json: { ke } }] });
		expect(result.error(READER)?.message).toBe(message);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('refuses an empty output field name before any request', async () => {
		const result = await runReader(sandbox, recordGet('KE-1001', { binaryPropertyName: ' ' }));
		expect(result.error(READER)?.message).toBe('Put Output File in Field is empty: enter the name of a binary field, e.g. data. [item 0]');
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('a wrong token fails with the Service error in words, never showing the token', async () => {
		const token = 'svc_reader_wrong_token_12345';
		const result = await runReader(sandbox, recordGet('KE-1001'), { token });
		const error = result.error(READER)!;
		expect(error.message).toBe('The Service rejected the access token (401)');
		expect(JSON.stringify(error)).not.toContain(token);
		expect(`${error.message} ${error.description}`).not.toContain(token);
		expect(sandbox.control.requests().map((r) => [r.path, r.reader, r.status])).toEqual([
			[recordPath('KE-1001'), undefined, 401],
		]);
	});
});

describe('Record > Verify', () => {
	it('outputs the Service\'s verification', async () => {
		const result = await runReader(sandbox, verify('KS-1001-v1'));
		const served = sandbox.control.record('KE-1001');
		expect(result.output(READER)).toEqual([
			{
				json: {
					...verificationBody(sandbox.dialect.answers.verification, { ...served, valid: true, signedAt: '' }),
					signed_at: expect.any(String),
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(sandbox.control.requests().map((r) => [r.method, r.path, r.status])).toEqual([
			['GET', '/v1/public/reports/KS-1001-v1/verify', 200],
		]);
	});

	it('a record fetched with Record > Get verifies: copy_matches is true', async () => {
		const logBefore = sandbox.control.accessLog().length;
		const fetched = await runReader(sandbox, recordGet('KE-1002'));
		const result = await runReader(sandbox, verify('={{ $json.ks }}', true), { inputItems: fetched.output(READER) });

		const served = sandbox.control.record('KE-1002');
		expect(result.output(READER)).toEqual([
			{
				json: {
					...verificationBody(sandbox.dialect.answers.verification, { ...served, valid: true, signedAt: '' }),
					signed_at: expect.any(String),
					copy_matches: true,
					copy_reason: `The copy is byte for byte the signed file: its ${suiteWords().digest} matches and the ${suiteWords().signature} signature verifies.`,
					copy_sha256: served.sha256,
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
			[recordPath('KE-1002'), fileStatus(sandbox)],
			['/v1/public/reports/KS-1002-v1/verify', 200],
		]);
		// Only the export is logged; verification is not an export.
		expect(sandbox.control.accessLog().slice(logBefore)).toEqual([recordLogEntry('KE-1002')]);
	});

	it('a copy the Service served tampered fails the copy check', async () => {
		sandbox.control.tamperRecord('KE-1005');
		const fetched = await runReader(sandbox, recordGet('KE-1005'));
		const bytes = await binaryBytes(fetched.output(READER)[0].binary!.data);
		expect(bytes.equals(sandbox.control.record('KE-1005').bytes)).toBe(true);

		const result = await runReader(sandbox, verify('KS-1005-v1', true), { inputItems: fetched.output(READER) });
		const [item] = result.output(READER);
		const copySha = createHash('sha256').update(bytes).digest('hex');
		expect(item.json).toMatchObject({ valid: true, copy_matches: false, copy_sha256: copySha });
		// In the dialect's digest: the copy's and the one published for the signed bytes.
		const suite = sandbox.dialect.answers.verification.digestSuite;
		const { signedBytes } = sandbox.control.record('KE-1005');
		const [copyDigest, published] = [bytes, signedBytes].map((b) => createHash(suite).update(b).digest('hex').slice(0, 16));
		expect(item.json.copy_reason).toBe(
			`The copy's ${suiteWords().digest} (${copyDigest}…) differs from the published one (${published}…): `
				+ 'the copy is not the signed file. It was changed, re-saved or re-encoded; download the record again.',
		);
		if (suite === 'sha256') expect(published).toBe(sandbox.control.record('KE-1005').sha256.slice(0, 16));
	});

	it('a re-serialised copy of a good record fails the copy check', async () => {
		const original = sandbox.control.record('KE-1006').bytes;
		const reserialised = Buffer.from(JSON.stringify(JSON.parse(original.toString('utf8')), null, 3));
		const result = await runReader(sandbox, verify('KS-1006-v1', true), {
			inputItems: [fileItem(reserialised, 'KS-1006-v1.json', 'application/json')],
		});
		expect(result.output(READER)[0].json).toMatchObject({ ks: 'KS-1006-v1', valid: true, copy_matches: false });
	});

	it.each([
		['a JWK Node cannot read', { kty: 'EC', crv: 'P-256', x: 'AQAB', y: 'AQAB' }, /^The Service's public_key could not be read as a public key \(a JWK Node cannot read: .+\); .* The copy was not checked\./],
		['an RSA key with no algorithm named', { kty: 'RSA', n: 'AQAB', e: 'AQAB' }, /^The Service's public_key is an RSA key: .* does not say which .* The copy was not checked\./],
	])('fails loudly, naming the field, when the Service\'s key is %s: never copy_matches false', async (_label, key, description) => {
		const bytes = sandbox.control.record('KE-1008').bytes;
		const sha256 = sandbox.control.record('KE-1008').sha256;
		const body = JSON.stringify({ ks: 'KS-1008-v1', valid: true, sha256, signature: sandbox.control.record('KE-1008').signature, public_key: key });
		sandbox.control.failRoute({ path: '/v1/public/reports/KS-1008-v1/verify', mode: 'answer', status: 200, contentType: 'application/json', body, times: 1 });
		const result = await runReader(sandbox, verify('KS-1008-v1', true), { inputItems: [fileItem(bytes, 'KS-1008-v1.json', 'application/json')] });
		expect(result.output(READER)).toEqual([]);
		expect(result.error(READER)?.message).toBe('Check Copy could not read the Service\'s verification: field public_key');
		expect(result.error(READER)?.description).toMatch(description);
	});

	it('fails loudly, naming the field, for a digest algorithm it does not read: never copy_matches false', async () => {
		const record = sandbox.control.record('KE-1008');
		const body = JSON.stringify({ ks: 'KS-1008-v1', valid: true, digest: `md5=${createHash('md5').update(record.bytes).digest('base64')}`, signature: record.signature, public_key: publicKeyAs('pem') });
		sandbox.control.failRoute({ path: '/v1/public/reports/KS-1008-v1/verify', mode: 'answer', status: 200, contentType: 'application/json', body, times: 1 });
		const result = await runReader(sandbox, verify('KS-1008-v1', true), { inputItems: [fileItem(record.bytes, 'KS-1008-v1.json', 'application/json')] });
		expect(result.output(READER)).toEqual([]);
		expect(result.error(READER)?.message).toBe('Check Copy could not read the Service\'s verification: field digest');
		expect(result.error(READER)?.description).toBe(
			'The Service\'s digest names the digest algorithm "md5", which cannot be checked here (SHA-256, SHA-384 and SHA-512 are read). '
				+ 'The copy was not checked. Turn Check Copy off to pass the verification on as it is.',
		);
	});

	it('checks the copy in the binary field it is told to', async () => {
		const bytes = sandbox.control.record('KE-1007').bytes;
		const result = await runReader(
			sandbox,
			{ ...verify('KS-1007-v1', true), binaryPropertyName: 'copy' },
			{ inputItems: [fileItem(bytes, 'copy.json', 'application/json', 'copy')] },
		);
		expect(result.output(READER)[0].json).toMatchObject({ copy_matches: true });
	});

	it('refuses a missing copy before any request, naming the field', async () => {
		const result = await runReader(sandbox, verify('KS-1001-v1', true), { inputItems: [{ json: { ks: 'KS-1001-v1' } }] });
		const error = result.error(READER)!;
		expect(error.message).toBe('The input item has no binary field "data" holding the copy of the record to check [item 0]');
		expect(error.description).toBe(
			'It has no binary data at all: put the copy of the record to check in the item first (e.g. with Read/Write Files from Disk), or set Input Binary Field.',
		);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('names the binary fields an item has when the one asked for is absent', async () => {
		const result = await runReader(sandbox, verify('KS-1001-v1', true), {
			inputItems: [fileItem(Buffer.from('{}'), 'x.json', 'application/json', 'record')],
		});
		expect(result.error(READER)?.description).toBe(
			'Its binary fields are "record": set Input Binary Field to the one holding the copy of the record to check.',
		);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('refuses a malformed KS before any request', async () => {
		const result = await runReader(sandbox, verify('KS/1001'));
		expect(result.error(READER)?.message).toBe('KS "KS/1001" is malformed: use only letters, digits, ".", "_" and "-". [item 0]');
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('an unknown KS fails with the Service\'s words', async () => {
		const result = await runReader(sandbox, verify('KS-9999-v1'));
		const error = result.error(READER)!;
		expect(error.message).toBe('The Service has nothing at this address (404)');
		expect(error.description).toBe(
			'Check the identifiers you entered. The Service said: "No signed report KS-9999-v1: check the KS." (GET /v1/public/reports/KS-9999-v1/verify)',
		);
	});
});
