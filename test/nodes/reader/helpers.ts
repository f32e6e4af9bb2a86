import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { IBinaryData, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import type { RunResult } from '../../harness';
import type { Sandbox } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';

/** Runs Test Items -> Service Reader (version 1 unless `typeVersion`) with these parameters as the main reader (or with `token`). */
export async function runReader(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: { inputItems?: INodeExecutionData[]; token?: string; continueOnFail?: boolean; typeVersion?: number } = {},
): Promise<RunResult> {
	return await runWorkflow(
		readerWorkflow(parameters, {
			...(options.continueOnFail ? { continueOnFail: true } : {}),
			...(options.typeVersion === undefined ? {} : { typeVersion: options.typeVersion }),
		}),
		{
			credentials: { serviceApi: serviceApi(sandbox, { token: options.token }) },
			inputItems: options.inputItems,
		},
	);
}

/** The exact bytes n8n stored for a binary output. */
export async function binaryBytes(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

/** An input item carrying a file in binary field `field`, as Read/Write Files from Disk would. */
export function fileItem(bytes: Buffer, fileName: string, mimeType: string, field = 'data'): INodeExecutionData {
	return { json: {}, binary: { [field]: { data: bytes.toString('base64'), mimeType, fileName } } };
}

/**
 * Runs `action` once, right after the Service has answered the first request to `path`, before any
 * later request is handled: the node awaits each answer before the next item's request, so this lands
 * between two items. Uses Node's built-in http server diagnostics channel; nothing is timed.
 */
export function afterFirstAnswer(path: string, action: () => void): () => void {
	let done = false;
	const listener = (message: unknown) => {
		const { request } = message as { request: IncomingMessage };
		if (done || new URL(request.url ?? '/', 'https://sandbox').pathname !== path) return;
		done = true;
		action();
	};
	subscribe('http.server.response.finish', listener);
	return () => unsubscribe('http.server.response.finish', listener);
}

export { READER };

/** The status the Service answers a file route with: 200, or the redirect to its object store (dialect.downloads). */
export function fileStatus(sandbox: Sandbox): number {
	const downloads = sandbox.dialect.downloads;
	return downloads.via === 'objectStore' ? downloads.status : 200;
}
