/**
 * Finding 6, the JSON export's parameter and value: the portfolio asked with the current name and
 * value, then other values (`json`, `application/json`) and names (`format`, `output`,
 * `response_format`, `output_format`); the first answer that is JSON and not CSV. A name other than
 * `format` (the spec's own, read for `format=csv`) counts only when the same name with a value no
 * Service reads as JSON is not answered with JSON: a Service whose default is JSON answers an
 * ignored name with JSON too.
 */
import type { ProbeBudget } from './budget';
import { answerShown, isJsonAnswer, listedNames, NameQueue, PATHS, quotedNames, refusalWords, requestShown, serviceWords, unique } from './answers';
import { cannotTell, currentName, finding, nameSetting, setting } from './current';
import type { Current } from './current';
import type { Finding } from './types';

const VALUE_TOPIC = 'JSON Format Value';
const NAME_TOPIC = 'JSON Format Parameter';
export const JSON_FORMAT_NAMES = ['format', 'output', 'response_format', 'output_format'] as const;
export const JSON_FORMAT_VALUES = ['json', 'application/json'] as const;
/** A value no Service reads as a request for JSON. */
const NOT_A_FORMAT = 'settings-check';

export async function checkJsonFormat(budget: ProbeBudget, current: Current): Promise<Finding[]> {
	const nameNow = currentName(current, 'export.json_format');
	const valueNow = current.jsonFormat;
	const valueSettings = [setting('jsonFormat', valueNow)];
	const nameSettings = [nameSetting('export.json_format', nameNow)];
	const unknown = (why: string) => [cannotTell(VALUE_TOPIC, why, valueSettings, valueNow), cannotTell(NAME_TOPIC, why, nameSettings, nameNow)];
	const ask = (name: string, value: string) => ({ path: PATHS.portfolio, query: [[name, value]] as Array<[string, string]> });

	const first = await budget.ask(ask(nameNow, valueNow));
	if (!first.answer) return unknown(first.spent ?? first.failed);
	const asked = `${requestShown(ask(nameNow, valueNow))} answered ${answerShown(first.answer)}`;
	if (isJsonAnswer(first.answer)) {
		return [
			finding(VALUE_TOPIC, 'ok', `${asked}: JSON.`, { settings: valueSettings, current: valueNow, found: valueNow }),
			finding(NAME_TOPIC, 'ok', `${asked}: JSON.`, { settings: nameSettings, current: nameNow, found: nameNow }),
		];
	}
	const words = serviceWords(first.answer);
	// Values the refusal lists ("use csv or ndjson"), the Service's own, go before the common ones.
	const known = new Set<string>(['csv', nameNow, valueNow, ...JSON_FORMAT_NAMES, ...JSON_FORMAT_VALUES]);
	const heardValues = unique([...quotedNames(refusalWords(first.answer)), ...listedNames(refusalWords(first.answer))]).filter((value) => !known.has(value.toLowerCase())).slice(0, 2);
	const values = unique([valueNow, ...heardValues, ...JSON_FORMAT_VALUES]);
	const names = new NameQueue([nameNow, ...JSON_FORMAT_NAMES]);
	// A refusal listing values ("use csv or ndjson") lists no names: neither is tried as one.
	const notNames = [...values, 'csv'];
	names.heard(refusalWords(first.answer), notNames);
	const outcomes: string[] = [asked];
	for (let name = names.next(); name !== undefined; name = names.next()) {
		for (const value of values) {
			if (name === nameNow && value === valueNow) continue;
			const result = await budget.ask(ask(name, value));
			if (!result.answer) return unknown(`${outcomes.join('; ')}; then ${result.spent ?? result.failed}`);
			if (!isJsonAnswer(result.answer)) {
				names.heard(refusalWords(result.answer), notNames);
				outcomes.push(`${name}=${value}: ${answerShown(result.answer)}`);
				continue;
			}
			if (name !== 'format') {
				const control = await budget.ask(ask(name, NOT_A_FORMAT));
				if (!control.answer) return unknown(`${outcomes.join('; ')}; then ${control.spent ?? control.failed}`);
				if (isJsonAnswer(control.answer)) {
					// JSON whatever the value: the Service ignores this name and answers JSON by default.
					outcomes.push(`${name}=${value} and ${name}=${NOT_A_FORMAT} both answered JSON (the name is ignored)`);
					break;
				}
			}
			const evidence = `${requestShown(ask(name, value))} answered ${answerShown(result.answer)}: JSON. Before: ${outcomes.join('; ')}.`;
			return [
				value === valueNow
					? finding(VALUE_TOPIC, 'ok', evidence, { settings: valueSettings, current: valueNow, found: value })
					: finding(VALUE_TOPIC, 'change', evidence, { settings: [setting('jsonFormat', value)], current: valueNow, found: value }),
				name === nameNow
					? finding(NAME_TOPIC, 'ok', evidence, { settings: nameSettings, current: nameNow, found: name })
					: finding(NAME_TOPIC, 'change', evidence, { settings: [nameSetting('export.json_format', name)], current: nameNow, found: name }),
			];
		}
	}
	const evidence = `No name and value tried gave JSON: ${outcomes.join('; ')}. The Service's words: "${words || 'none'}".`;
	return [
		finding(VALUE_TOPIC, 'unknown', evidence, { settings: valueSettings, current: valueNow }),
		finding(NAME_TOPIC, 'unknown', evidence, { settings: nameSettings, current: nameNow }),
	];
}
