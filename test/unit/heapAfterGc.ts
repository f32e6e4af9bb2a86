import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const MiB = 1024 * 1024;

/** Heap in use after a full collection (gc exposed at run time when jest was not started with --expose-gc). */
export function heapAfterGc(): number {
	const exposed = (globalThis as { gc?: () => void }).gc;
	if (exposed !== undefined) exposed();
	else {
		setFlagsFromString('--expose-gc');
		(runInNewContext('gc') as () => void)();
	}
	return process.memoryUsage().heapUsed;
}
