import type { INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../sandbox/useSandbox';
import { afterFirstAnswer, binaryBytes, fileStatus, READER, runReader } from './helpers';

const sandbox = useSandbox();

const packGet = (ke: string, packId: string, options: INodeParameters = {}) => ({
	resource: 'auditPack',
	operation: 'get',
	ke,
	packId,
	options,
});
const packPath = (ke: string, packId: string) => `/v1/reader/exports/audit-packs/${ke}/${packId}`;
const packLogEntry = (ke: string, packId: string) => ({
	at: expect.any(String),
	reader: 'reader',
	export: 'audit_pack',
	path: packPath(ke, packId),
	ke,
});

describe('Audit Pack > Get', () => {
	it('outputs the pack as a file with the Service\'s content type and file name, and its metadata', async () => {
		const logBefore = sandbox.control.accessLog().length;
		const result = await runReader(sandbox, packGet('KE-1001', 'AP-1001-1'));

		const [item, ...rest] = result.output(READER);
		expect(rest).toEqual([]);
		const bytes = await binaryBytes(item.binary!.data);
		expect(item).toEqual({
			json: { ke: 'KE-1001', pack_id: 'AP-1001-1', file_name: 'AP-1001-1.zip', mime_type: 'application/zip', size: bytes.length },
			binary: {
				data: expect.objectContaining({ mimeType: 'application/zip', fileName: 'AP-1001-1.zip', fileExtension: 'zip' }),
			},
			pairedItem: { item: 0 },
		});
		// A stored (uncompressed) zip: its local file header, and the signed record inside byte for byte.
		expect(bytes.subarray(0, 4).toString('hex')).toBe('504b0304');
		expect(bytes.includes(sandbox.control.record('KE-1001').bytes)).toBe(true);
		expect(bytes.includes(Buffer.from('"pack_id": "AP-1001-1"'))).toBe(true);

		expect(sandbox.control.requests().map((r) => [r.method, r.path, r.reader, r.status])).toEqual([
			['GET', packPath('KE-1001', 'AP-1001-1'), 'reader', fileStatus(sandbox)],
		]);
		expect(sandbox.control.accessLog().slice(logBefore)).toEqual([packLogEntry('KE-1001', 'AP-1001-1')]);
	});

	it('puts the pack in the binary field named in the options', async () => {
		const result = await runReader(sandbox, packGet('KE-1002', 'AP-1002-1', { binaryPropertyName: 'pack' }));
		const [item] = result.output(READER);
		expect(Object.keys(item.binary ?? {})).toEqual(['pack']);
		expect(item.json).toMatchObject({ ke: 'KE-1002', pack_id: 'AP-1002-1', file_name: 'AP-1002-1.zip' });
	});

	it('stops with the share words when the company no longer shares', async () => {
		const logBefore = sandbox.control.accessLog().length;
		const result = await runReader(sandbox, packGet('KE-1012', 'AP-1012-1'));
		const error = result.error(READER)!;
		expect(error.message).toBe(`Company KE-1012 does not share with this reader (${sandbox.dialect.notSharedStatus}): the share may have ended`);
		expect(error.description).toContain('set Options > When Company Does Not Share to Output Item');
		// A 404 whose code does not say "not shared" is settled by the record route.
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
			[packPath('KE-1012', 'AP-1012-1'), sandbox.dialect.notSharedStatus],
			...(sandbox.dialect.saysNotShared ? [] : [['/v1/reader/exports/records/KE-1012', sandbox.dialect.notSharedStatus]]),
		]);
		expect(sandbox.control.accessLog()).toHaveLength(logBefore);
	});

	it('outputs { ke, pack_id, shared: false } when asked to', async () => {
		const result = await runReader(sandbox, packGet('KE-1012', 'AP-1012-1', { whenNotShared: 'outputItem' }));
		expect(result.output(READER)).toEqual([
			{ json: { ke: 'KE-1012', pack_id: 'AP-1012-1', shared: false }, pairedItem: { item: 0 } },
		]);
	});

	it('a pack that does not exist is an error, never mistaken for an ended share', async () => {
		const result = await runReader(sandbox, packGet('KE-1001', 'AP-9999-9', { whenNotShared: 'outputItem' }));
		const error = result.error(READER)!;
		expect(error.message).toBe('The Service has no audit pack AP-9999-9 for company KE-1001 (404)');
		expect(error.description).toBe(
			'Take the pack_id from the decisions export (Decision > Get Many). The company still shares with you. The Service said: '
				+ '"No audit pack AP-9999-9 for company KE-1001: take pack_id from the decisions export." '
				+ '(GET /v1/reader/exports/audit-packs/KE-1001/AP-9999-9)',
		);
		// The 404's code does not say "not shared", so the record route settled it: the company still shares.
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
			['/v1/reader/exports/audit-packs/KE-1001/AP-9999-9', 404],
			['/v1/reader/exports/records/KE-1001', fileStatus(sandbox)],
		]);
	});

	it('share revoked between two items: first pack downloaded, second { ke, pack_id, shared: false }', async () => {
		const stop = afterFirstAnswer(packPath('KE-1002', 'AP-1002-1'), () => sandbox.control.revokeShare('KE-1002'));
		let output;
		try {
			const result = await runReader(sandbox, packGet('KE-1002', 'AP-1002-1', { whenNotShared: 'outputItem' }), {
				inputItems: [{ json: {} }, { json: {} }],
			});
			output = result.output(READER);
		} finally {
			stop();
		}
		expect(output.map((item) => item.json)).toEqual([
			{ ke: 'KE-1002', pack_id: 'AP-1002-1', file_name: 'AP-1002-1.zip', mime_type: 'application/zip', size: expect.any(Number) },
			{ ke: 'KE-1002', pack_id: 'AP-1002-1', shared: false },
		]);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([fileStatus(sandbox), sandbox.dialect.notSharedStatus, ...(sandbox.dialect.saysNotShared ? [] : [sandbox.dialect.notSharedStatus])]);
	});

	it.each([
		[{ ke: 'KE-1001', packId: '' }, 'Pack ID is empty. Enter the Pack ID exactly as the Service shows it. [item 0]'],
		[{ ke: 'KE-1001', packId: 'AP/1' }, 'Pack ID "AP/1" is malformed: use only letters, digits, ".", "_" and "-". [item 0]'],
		[{ ke: '', packId: 'AP-1001-1' }, 'KE is empty. Enter the KE exactly as the Service shows it. [item 0]'],
		[{ ke: '..', packId: 'AP-1001-1' }, 'KE ".." is malformed: use only letters, digits, ".", "_" and "-". [item 0]'],
	])('refuses %j before any request', async (json, message) => {
		const result = await runReader(sandbox, packGet('={{ $json.ke }}', '={{ $json.packId }}'), { inputItems: [{ json }] });
		expect(result.error(READER)?.message).toBe(message);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('a reader without exports switched on gets the Service\'s words', async () => {
		const result = await runReader(sandbox, packGet('KE-1001', 'AP-1001-1'), { token: sandbox.tokens.noExports });
		expect(result.error(READER)?.message).toBe('Exports are not switched on for this reader organisation (403)');
	});
});
