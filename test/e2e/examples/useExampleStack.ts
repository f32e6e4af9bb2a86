import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packPackage } from '../n8n';
import { repoRoot } from '../n8n-install';
import { startExampleStack, type ExampleStack, type ExampleStackOptions } from './stack';

/**
 * The example stack of one test file, on the package packed afresh: started in beforeAll, stopped
 * with its folder in afterAll. The returned function gives the stack, or throws if it did not start.
 */
export function useExampleStack(
	name: string,
	options: Omit<ExampleStackOptions, 'tarball'> = {},
	timeouts: { start: number; stop: number } = { start: 300_000, stop: 60_000 },
): () => ExampleStack {
	let stack: ExampleStack | undefined;
	let work: string | undefined;
	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), `service-${name}-`));
		stack = await startExampleStack({ ...options, tarball: await packPackage(repoRoot, work) });
	}, timeouts.start);
	afterAll(async () => {
		await stack?.stop();
		if (work) await rm(work, { recursive: true, force: true });
	}, timeouts.stop);
	return () => {
		if (!stack) throw new Error('the example stack did not start');
		return stack;
	};
}
