import { ProcessGroup } from './process-group';

export interface CliResult {
	/** Exit code; null when it was killed (timeout). */
	code: number | null;
	stdout: string;
	stderr: string;
}

export interface CliRun {
	node: string;
	bin: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
	args: string[];
	timeoutMs: number;
}

/** One n8n CLI command (`n8n import:workflow …`), killed with its task runner after `timeoutMs`. */
export async function runCli(run: CliRun): Promise<CliResult> {
	const group = new ProcessGroup(run.node, [run.bin, ...run.args], { cwd: run.cwd, env: run.env });
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		void group.stop(5_000);
	}, run.timeoutMs);
	try {
		const code = await group.exited;
		if (timedOut) {
			throw new Error(`n8n ${run.args.join(' ')} did not finish within ${run.timeoutMs} ms:\n${tail(group.text)}`);
		}
		return { code, stdout: group.stdout, stderr: group.stderr };
	} finally {
		clearTimeout(timer);
		await group.stop();
	}
}

/** A CLI result that must have succeeded. */
export function checked(result: CliResult, what: string): CliResult {
	if (result.code !== 0) {
		throw new Error(`${what} exited with ${result.code}:\n${tail(result.stdout)}\n${tail(result.stderr)}`);
	}
	return result;
}

/**
 * The run data `n8n execute` prints: task runner lines come first, then the JSON (indented, so it
 * starts with a line `{` and ends with a line `}`), and log lines may follow it.
 */
export function parseExecuteOutput<T = ExecuteResult>(stdout: string): T {
	const lines = stdout.split('\n');
	const start = lines.indexOf('{');
	const end = lines.indexOf('}', start);
	if (start < 0 || end < 0) throw new Error(`No JSON in n8n execute output:\n${tail(stdout)}`);
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as T;
}

/** The parts of n8n's IRun that tests read. */
export interface ExecuteResult {
	status?: string;
	finished?: boolean;
	data: {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;
			error?: { message: string };
			lastNodeExecuted?: string;
		};
	};
}

/** The JSON items a node output on its first run (main output 0). */
export function nodeItems(run: ExecuteResult, nodeName: string): Array<Record<string, unknown>> {
	const runs = run.data.resultData.runData[nodeName];
	if (!runs?.length) throw new Error(`Node "${nodeName}" did not run`);
	return (runs[0].data?.main?.[0] ?? []).map((item) => item.json);
}

function tail(text: string, lines = 40): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}
