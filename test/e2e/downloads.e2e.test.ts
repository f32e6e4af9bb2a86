import { dialectFromEnvironment, dialectNamed } from '../sandbox/dialect';
import { binaryOf, downloadBinary } from './examples/binary-file';
import { exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { nodeItems } from './n8n';

// A Service that serves files from an object store on another origin, in a real n8n: the supplier check
// example's Record > Get follows the Service's redirect there (and one more inside the store) with no
// credential, and the signed record arrives byte for byte.
describe('a record redirected to an object store, in a real n8n', () => {
	const running = useExampleStack('e2e-downloads', {
		sandbox: { dialect: { ...dialectNamed(dialectFromEnvironment()), downloads: { via: 'objectStore', status: 302, hops: 1 } } },
	});

	test('the record arrives byte for byte and verifies; the object store saw no credential', async () => {
		const { n8n, sandbox } = running();
		const served = sandbox.control.record('KE-1001');
		sandbox.objectStore.clearRequests();

		const run = await n8n.executeWorkflow(exampleIds.supplierCheck);

		expect(run.data.resultData.error).toBeUndefined();
		expect(nodeItems(run, "Supplier's signed record")).toEqual([JSON.parse(served.bytes.toString('utf8'))]);
		expect((await downloadBinary(n8n, binaryOf(run, "Supplier's signed record"))).equals(served.bytes)).toBe(true);
		expect(nodeItems(run, 'Verify it and this copy')).toEqual([expect.objectContaining({ copy_matches: true, copy_sha256: served.sha256 })]);
		// The Service answered the token's request with the redirect; the store got two requests, neither with a credential.
		expect(sandbox.control.requests({ path: '/v1/reader/exports/records/KE-1001' }).map((r) => [r.reader, r.status])).toEqual([['reader', 302]]);
		const requests = sandbox.objectStore.requests();
		expect(requests.map((r) => r.status)).toEqual([307, 200]);
		for (const request of requests) {
			expect([request.refused, request.headers.authorization, request.headers.cookie]).toEqual([undefined, undefined, undefined]);
			for (const token of Object.values(sandbox.tokens)) expect(JSON.stringify(request.headers)).not.toContain(token);
		}
	}, 120_000);
});
