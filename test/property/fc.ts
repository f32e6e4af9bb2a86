import fc from 'fast-check';

/**
 * Run settings for fast-check properties: a new random seed each run, printed by fast-check on
 * failure with its path. Replay one with FC_SEED (and FC_PATH); lengthen a run with FC_RUNS.
 *   FC_SEED=123 FC_PATH="4:1" npm run test:in-process -- test/unit/webhookSignature.property
 */
export function runs(defaultRuns: number): fc.Parameters<unknown> {
	const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
	return {
		numRuns: process.env.FC_RUNS ? Number(process.env.FC_RUNS) : defaultRuns,
		...(seed !== undefined && Number.isFinite(seed) ? { seed } : {}),
		...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
	};
}
