import type { ReaderOrg, Statement } from './types';

/**
 * How a Service may answer work it does later, where the spec shows nothing (docs/service-choices.md:
 * "Jobs"): the import accepted with 202 and followed to its result, a policy run accepted `running`
 * with its statement listed a little later. The store of jobs and of statements not yet listed.
 */
export interface JobAnswers {
	/**
	 * The import answered at once (200), or accepted (202) as a job: followed at its `Location`, at a status
	 * URL in its body (the result then at a result URL), with the result inline in the done status, by a 303
	 * to the result, or `bare` (a 202 naming no job at all).
	 */
	import: 'immediate' | 'location' | 'statusUrl' | 'inline' | 'seeOther' | 'bare';
	/** Poll answers saying the job is still running before it ends. */
	pollsBeforeEnd: number;
	/** Retry-After (seconds) on the 202 and on every "still running" answer; undefined: none sent. */
	retryAfterSeconds?: number;
	/** How the job ends: with its result, failed in the Service's words, or never. */
	ending: 'result' | 'failed' | 'never';
	/** The job's URL on the Service's own origin, or on another one (the same server named `localhost`). */
	origin: 'same' | 'other';
	/**
	 * A policy run created done with its statement listed, or accepted `running`, its statement listed later;
	 * `acceptedNoJob`: a 202 whose Location names no job the Service serves (it answers 404), the statement listed later.
	 */
	policyRun: 'completed' | 'running' | 'acceptedNoJob';
	/** Reads of the statements export after which a `running` run's statement is listed. */
	statementAfterReads: number;
}

export const immediateJobs: JobAnswers = {
	import: 'immediate',
	pollsBeforeEnd: 0,
	ending: 'result',
	origin: 'same',
	policyRun: 'completed',
	statementAfterReads: 0,
};

export interface SandboxJob {
	id: string;
	/** The answer once done, in the documented names (worded by the dialect when sent). */
	result: unknown;
	answers: JobAnswers;
	polls: number;
}

const jobs = new WeakMap<ReaderOrg, Map<string, SandboxJob>>();
const pending = new WeakMap<ReaderOrg, Array<{ statement: Statement; reads: number }>>();

export function jobsOf(reader: ReaderOrg): Map<string, SandboxJob> {
	let held = jobs.get(reader);
	if (held === undefined) jobs.set(reader, (held = new Map()));
	return held;
}

export const jobPath = (id: string) => `/v1/reader/jobs/${encodeURIComponent(id)}`;

/** A statement listed only after `reads` more reads of the statements export. */
export function listLater(reader: ReaderOrg, statement: Statement, reads: number): void {
	if (reads <= 0) {
		reader.statements.push(statement);
		return;
	}
	const list = pending.get(reader) ?? [];
	list.push({ statement, reads });
	pending.set(reader, list);
}

/** One read of the statements export: statements whose time has come are listed from now on. */
export function statementsRead(reader: ReaderOrg): void {
	const list = pending.get(reader);
	if (!list) return;
	for (const entry of [...list]) {
		if (--entry.reads <= 0) {
			reader.statements.push(entry.statement);
			list.splice(list.indexOf(entry), 1);
		}
	}
}
