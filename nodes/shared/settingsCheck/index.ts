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
import { findApiDocument, withDocument } from './documented';
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

/** A check that throws (a Service's answer no reader foresaw) is `unknown` saying so; the other checks still run. */
async function safely<T>(topics: readonly string[], step: () => Promise<T> | T, wrap: (found: T) => Finding[]): Promise<Finding[]> {
	try {
		return wrap(await step());
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return topics.map((topic) => cannotTell(topic, `the check could not read the Service's answers (${message.length > 160 ? `${message.slice(0, 160)}…` : message})`));
	}
}

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
	const one = (found: Finding) => [found];
	const many = (found: Finding[]) => found;
	findings.push(...(await safely(['Page Size Parameter'], () => checkPageSize(budget, current, pages), one)));
	findings.push(...(await safely(['Cursor Parameter'], () => checkCursor(budget, current, pages), one)));
	findings.push(...(await safely(['CSV Delimiter', 'CSV Header Row on Later Pages'], () => checkCsv(current, pages), many)));
	findings.push(...(await safely(['JSON Format Value', 'JSON Format Parameter'], () => checkJsonFormat(budget, current), many)));
	let window = { refused: [] as string[], ignored: [] as string[] };
	// Names the Service was seen to read for something else are not the window's.
	const taken = findings.filter((entry) => ['Page Size Parameter', 'Cursor Parameter', 'JSON Format Parameter'].includes(entry.topic) && entry.found).map((entry) => entry.found!);
	findings.push(...(await safely(['Window Parameter'], () => checkWindow(budget, current, taken, findings.find((entry) => entry.topic === 'Page Size Parameter')?.found || undefined), (result) => {
		window = result;
		return [result.finding];
	})));
	findings.push(...(await safely(['Unknown Query Parameters'], () => checkUnknownParameter(budget, window), one)));
	findings.push(...(await safely(['Decisions List Shape', 'Statements List Shape'], () => checkListShapes(budget), many)));
	findings.push(...(await safely(['Error Body Shape'], () => checkErrorShape(budget), one)));
	findings.push(rateLimitFinding(budget));
	// Last, only with budget left: a published API document and the catalogue's example secret.
	const document = await findApiDocument(budget, current.baseUrl).catch(() => undefined);
	findings.push(...withDocument(notChecked(current), base.path === PATHS.catalogue ? base.answer : undefined, document, current));
	return findings;
}

