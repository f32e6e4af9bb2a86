import type { ExecuteResult } from '../n8n-cli';
import type { N8n } from '../n8n';

interface BinaryReference {
	id?: string;
	data?: string;
	fileName?: string;
	mimeType?: string;
}

/** The binary field a node output on its first item, as the run data references it. */
export function binaryOf(run: ExecuteResult, nodeName: string, field = 'data'): BinaryReference {
	const runs = run.data.resultData.runData[nodeName] as unknown as Array<{
		data?: { main?: Array<Array<{ binary?: Record<string, BinaryReference> }>> };
	}>;
	const binary = runs?.[0]?.data?.main?.[0]?.[0]?.binary?.[field];
	if (!binary) throw new Error(`Node "${nodeName}" output no binary field "${field}"`);
	return binary;
}

/**
 * The file's bytes as the editor's download button gets them: stored binary data (filesystem
 * mode) through /rest/binary-data, or the base64 kept in the run data (memory mode).
 */
export async function downloadBinary(n8n: N8n, binary: BinaryReference): Promise<Buffer> {
	if (!binary.id) return Buffer.from(binary.data ?? '', 'base64');
	const response = await n8n.rest('GET', `/rest/binary-data?id=${encodeURIComponent(binary.id)}&action=download`);
	if (response.status !== 200) throw new Error(`Binary data download: ${response.status} ${response.body.slice(0, 300)}`);
	return response.bytes;
}
