/**
 * Check Settings: the engine. Runs every check within PROBE_LIMITS (GETs only, through one budget),
 * in a fixed order: sign-in and Base URL first (nothing else can be asked without them), then what
 * the nodes need to read exports (page size, cursor, CSV, JSON format, window), then information.
 */
import { ProbeBudget, type Limits } from './budget';
import { PATHS } from './answers';
import { checkBaseUrl } from './baseUrl';
import { cannotTell, readCurrent } from './current';
import { checkCsv } from './csvFormat';
import { checkCursor } from './cursor';
import { checkJsonFormat } from './jsonFormat';
import { notChecked } from './notChecked';
import { checkPageSize, type Pages } from './pageSize';
import { checkSignIn, SIGN_IN_TOPIC } from './signIn';
import { checkErrorShape, checkListShapes, rateLimitFinding } from './shapes';
import { checkUnknownParameter } from './unknownParameter';
import { checkWindow } from './window';
import type { CheckedCredential, Finding, Probe } from './types';
import { PROBE_LIMITS } from './types';

export * from './types';
export { settingsMessage } from './message';
export { applyFindings } from './apply';

/** The findings after sign-in that cannot be asked, each `unknown` saying why. */
const LATER_TOPICS = ['Page Size Parameter', 'Cursor Parameter', 'CSV Delimiter', 'CSV Header Row on Later Pages', 'JSON Format Value', 'JSON Format Parameter', 'Window Parameter'];

/** Runs every check within PROBE_LIMITS (GETs only), in a fixed order; a check the budget leaves no room for is `unknown`, saying so. */
export async function checkSettings(probe: Probe, credential: CheckedCredential, now: () => number = Date.now, limits: Limits = PROBE_LIMITS): Promise<Finding[]> {
	const budget = new ProbeBudget(probe, now, limits);
	const current = readCurrent(credential);
	const findings: Finding[] = [];
	const first = await budget.ask({ path: PATHS.catalogue });
	if (!first.answer) {
		const why = first.spent ?? first.failed;
		findings.push(cannotTell('Base URL', why, [], current.baseUrl), cannotTell(SIGN_IN_TOPIC, why));
		for (const topic of LATER_TOPICS) findings.push(cannotTell(topic, 'the Service could not be reached'));
		return [...findings, ...notChecked(current)];
	}
	const base = await checkBaseUrl(budget, current.baseUrl, first.answer);
	findings.push(base.finding);
	if (base.answer === undefined) {
		findings.push(cannotTell(SIGN_IN_TOPIC, 'the Service was not found at the Base URL'));
		for (const topic of LATER_TOPICS) findings.push(cannotTell(topic, 'the Service was not found at the Base URL'));
		return [...findings, ...notChecked(current)];
	}
	const signIn = await checkSignIn(budget, current, base.answer, base.path);
	findings.push(signIn.finding);
	if (!signIn.signedIn) {
		for (const topic of LATER_TOPICS) findings.push(cannotTell(topic, 'the check can read the exports only after sign-in works'));
		return [...findings, ...notChecked(current)];
	}
	const pages: Pages = { sizeQuery: [], ...(base.path === PATHS.portfolio ? { unasked: base.answer } : {}) };
	findings.push(await checkPageSize(budget, current, pages));
	findings.push(await checkCursor(budget, current, pages));
	findings.push(...checkCsv(current, pages));
	findings.push(...(await checkJsonFormat(budget, current)));
	const window = await checkWindow(budget, current);
	findings.push(window.finding);
	findings.push(await checkUnknownParameter(budget, window));
	findings.push(...(await checkListShapes(budget)));
	findings.push(await checkErrorShape(budget));
	findings.push(rateLimitFinding(budget));
	findings.push(...notChecked(current));
	return findings;
}

