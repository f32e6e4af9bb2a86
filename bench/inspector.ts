/** n8n's live memory, read through its inspector after a garbage collection, and its process tree's RSS. */
import { waitFor } from '../test/e2e/wait-for';
import { descendants, rssMiB } from './processTree';

export interface Inspector {
	/** Collects n8n's garbage (a full GC). */
	gc(): Promise<void>;
	/** n8n's V8 heap in use, MiB. */
	heapUsedMiB(): Promise<number>;
	close(): void;
}

/** n8n's main process through its inspector (Chrome DevTools Protocol over a WebSocket on loopback). */
export async function openInspector(port: number): Promise<Inspector> {
	const targets = await waitFor(
		async () => {
			const answer = await fetch(`http://127.0.0.1:${port}/json/list`).catch(() => undefined);
			return answer?.ok ? ((await answer.json()) as Array<{ webSocketDebuggerUrl: string }>) : undefined;
		},
		{ what: `n8n's inspector on port ${port}`, timeoutMs: 30_000 },
	);
	const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
	await new Promise<void>((resolve, reject) => {
		socket.addEventListener('open', () => resolve(), { once: true });
		socket.addEventListener('error', () => reject(new Error("could not connect to n8n's inspector")), { once: true });
	});
	let next = 1;
	const waiting = new Map<number, (result: Record<string, unknown>) => void>();
	socket.addEventListener('message', (event) => {
		const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
		if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? {});
		if (message.id !== undefined) waiting.delete(message.id);
	});
	const call = (method: string) =>
		new Promise<Record<string, unknown>>((resolve, reject) => {
			const id = next++;
			const timer = setTimeout(() => {
				waiting.delete(id);
				reject(new Error(`${method}: no answer from n8n's inspector within 60 s`));
			}, 60_000);
			waiting.set(id, (result) => {
				clearTimeout(timer);
				resolve(result);
			});
			socket.send(JSON.stringify({ id, method }));
		});
	return {
		gc: async () => {
			await call('HeapProfiler.collectGarbage');
		},
		heapUsedMiB: async () => Number((await call('Runtime.getHeapUsage')).usedSize) / 2 ** 20,
		close: () => socket.close(),
	};
}

/** RSS of n8n and its descendants (the task runner), MiB. */
export function treeRss(pid: number): number {
	return [pid, ...descendants(pid)].reduce((sum, each) => sum + rssMiB(each), 0);
}

/** What n8n holds live once it has been quiet for a moment and its garbage collected. */
export async function quietNow(pid: number, v8: Inspector): Promise<{ rss: number; heap: number }> {
	await new Promise((resolve) => setTimeout(resolve, 2_000));
	await v8.gc();
	await new Promise((resolve) => setTimeout(resolve, 500));
	return { rss: treeRss(pid), heap: await v8.heapUsedMiB() };
}
