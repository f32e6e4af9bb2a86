/**
 * The credential as the checks read it: each setting's value now (with its documented default) and
 * how a finding names a setting, in the words of the credential dialog (settings/advancedSettings.ts).
 */
import { advancedSettingsFields } from '../settings/advancedSettings';
import { conceptLabel, documentedName, readRequestNames, type RequestConcept } from '../transport/requestNames';
import { readSignIn, type SignIn } from '../transport/signIn';
import type { CheckedCredential, Finding, FindingSetting, Verdict } from './types';

export interface Current {
	baseUrl: string;
	cursorParameter: string;
	/** Send Cursor As Header: the header's name (Cursor Header Name); undefined: the query. */
	cursorHeader?: string;
	pageSizeParameter: string;
	jsonFormat: string;
	csvDelimiter: string;
	csvHeaderRepeat: string;
	signIn: SignIn;
	/** Request Names rows as the user set them (a Map: names are Service text). */
	names: ReadonlyMap<RequestConcept, string>;
	advanced: Readonly<Record<string, unknown>>;
}

const text = (value: unknown, fallback: string) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback);

export function readCurrent(credential: CheckedCredential): Current {
	const advanced = credential.advanced;
	const names = readRequestNames(advanced.requestNames);
	const signIn = readSignIn(advanced as Record<string, unknown>);
	return {
		baseUrl: credential.baseUrl.trim(),
		cursorParameter: text(advanced.cursorParameter, 'cursor'),
		cursorHeader: advanced.cursorPlacement === 'header' ? text(advanced.cursorHeaderName, 'X-Service-Cursor') : undefined,
		pageSizeParameter: text(advanced.pageSizeParameter, ''),
		jsonFormat: text(advanced.jsonFormat, 'json'),
		csvDelimiter: text(advanced.csvDelimiter, 'auto'),
		csvHeaderRepeat: text(advanced.csvHeaderRepeat, 'auto'),
		signIn: 'signIn' in signIn ? signIn.signIn : { form: 'bearer' },
		names: 'names' in names ? names.names : new Map(),
		advanced,
	};
}

/** The name the nodes send for `concept` now: the user's row, else the documented name. */
export function currentName(current: Current, concept: RequestConcept): string {
	return current.names.get(concept) ?? documentedName(concept);
}

/** The dialog's label of a credential field (`cursorParameter` → Cursor Parameter). */
export function labelOf(field: string): string {
	if (field === 'baseUrl') return 'Base URL';
	return advancedSettingsFields.find((property) => property.name === field)?.displayName ?? field;
}

/** The option's name as the dialog shows it (`tokenPlacement`, `header` → Another Header), or undefined for a text field. */
export function optionShown(field: string, value: string): string | undefined {
	const options = advancedSettingsFields.find((property) => property.name === field)?.options;
	const option = options?.find((entry) => 'value' in entry && entry.value === value);
	return option === undefined ? undefined : option.name;
}

/** A setting of a finding: the field, its label, the value and, for an option, its name. */
export function setting(field: string, value: string): FindingSetting {
	const shown = optionShown(field, value);
	return { field, label: labelOf(field), value, ...(shown !== undefined ? { shown } : {}) };
}

/** A Request Names row as a finding's setting. */
export function nameSetting(concept: RequestConcept, serviceName: string): FindingSetting {
	return { field: 'requestNames', concept, label: `Request Names > ${conceptLabel(concept)}`, value: serviceName };
}

export function finding(topic: string, verdict: Verdict, evidence: string, extra: Partial<Omit<Finding, 'topic' | 'verdict' | 'evidence'>> = {}): Finding {
	return { topic, settings: [], verdict, evidence, ...extra };
}

/** What cannot be asked: the budget is spent, the request failed, or an earlier step failed. */
export function cannotTell(topic: string, why: string, settings: FindingSetting[] = [], current?: string): Finding {
	return finding(topic, 'unknown', `Not checked: ${why}.`, { settings, ...(current !== undefined ? { current } : {}) });
}
