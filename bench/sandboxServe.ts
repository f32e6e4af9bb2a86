/**
 * Entry of the sandbox's own process (see sandboxProcess.ts): starts it with the options in argv[2] (JSON),
 * prints one JSON line with how to reach it, and stops when its parent closes stdin or sends SIGTERM.
 */
import { startSandbox, type SandboxOptions } from '../test/sandbox';

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
	const sandbox = await startSandbox(options);
	const { baseUrl, ca, tokens, controlToken } = sandbox;
	process.stdout.write(`${JSON.stringify({ baseUrl, ca, tokens, controlToken })}\n`);
	const stop = () => void sandbox.close().then(() => process.exit(0));
	// A parent that dies closes the pipe: the sandbox never outlives the benchmark.
	process.stdin.on('end', stop).resume();
	process.once('SIGTERM', stop);
}

main().catch((error: Error) => {
	process.stderr.write(`Could not start the sandbox: ${error.message}\n`);
	process.exit(1);
});
