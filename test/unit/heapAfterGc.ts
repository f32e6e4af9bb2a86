import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const MiB = 1024 * 1024;

/**
 * Memory live after a full collection (gc exposed at run time when jest was not started with --expose-gc):
 * V8's heap plus external memory, where Node keeps a large string decoded from a Buffer (a page's text) and Buffers.
 */
export function heapAfterGc(): number {
	let gc = (globalThis as { gc?: () => void }).gc;
	if (gc === undefined) {
		setFlagsFromString('--expose-gc');
		gc = runInNewContext('gc') as () => void;
	}
	// Twice: external strings a collection found dead are released by the next one.
	gc();
	gc();
	const { heapUsed, external } = process.memoryUsage();
	return heapUsed + external;
}
