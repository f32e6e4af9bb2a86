/**
 * Finding 8, information: whether the Service refuses a query parameter it does not know (400) or
 * ignores it, so the user knows whether a misnamed Window Parameter would be caught by the Service.
 */
import type { ProbeBudget } from './budget';
import { answerShown, PATHS, requestShown, succeeded } from './answers';
import { cannotTell, finding } from './current';
import type { Finding } from './types';

const TOPIC = 'Unknown Query Parameters';
/** A name no Service reads. */
export const UNKNOWN_NAME = 'settings_check_unknown';

export async function checkUnknownParameter(budget: ProbeBudget, window: { refused: string[]; ignored: string[] }): Promise<Finding> {
	const request = { path: PATHS.expiries, query: [['format', 'csv'], [UNKNOWN_NAME, '1']] as Array<[string, string]> };
	const result = await budget.ask(request);
	if (!result.answer) return cannotTell(TOPIC, result.spent ?? result.failed);
	const asked = `${requestShown(request)} answered ${answerShown(result.answer)}`;
	const seen = [
		window.refused.length ? `window names refused: ${window.refused.join(', ')}` : '',
		window.ignored.length ? `window names ignored: ${window.ignored.join(', ')}` : '',
	].filter((part) => part !== '').join('; ');
	const also = seen ? ` (${seen})` : '';
	if (succeeded(result.answer)) {
		return finding(TOPIC, 'info', `${asked}: the Service ignores a parameter it does not know${also}, so a misnamed Window Parameter is not refused; the node still fails an expiries row outside the window asked for where the rows carry their days or end date.`, { found: 'ignored' });
	}
	if (result.answer.status >= 400 && result.answer.status < 500) {
		return finding(TOPIC, 'info', `${asked}: the Service refuses a parameter it does not know${also}, so a misnamed Window Parameter fails with its words.`, { found: 'refused' });
	}
	return finding(TOPIC, 'unknown', `${asked}, which says neither${also}.`);
}
