import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { ServiceApi } from '../../credentials/ServiceApi.credentials';
import { CONCEPT_IDS, conceptLabel } from '../../nodes/shared/transport/requestNames';
import type { N8n } from './n8n';

/** What n8n's credential test answers (`ICredentialTestResult`). */
export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * What the credential dialog does on Save and on Retry, in n8n 1.x and 2.x: open the saved credential
 * (secrets redacted; n8n puts them back) and `POST /rest/credentials/test` with it.
 */
export async function testSavedCredential(n8n: N8n, id: string, name: string): Promise<CredentialTestResult> {
	const opened = await n8n.rest('GET', `/rest/credentials/${id}?includeData=true`);
	if (opened.status !== 200) throw new Error(`GET /rest/credentials/${id}: ${opened.status} ${opened.body.slice(0, 300)}`);
	const { data } = opened.json<{ data: { data: IDataObject } }>().data;
	const answer = await n8n.rest('POST', '/rest/credentials/test', { credentials: { id, name, type: 'serviceApi', data } });
	if (answer.status !== 200) throw new Error(`POST /rest/credentials/test: ${answer.status} ${answer.body.slice(0, 300)}`);
	return answer.json<{ data: CredentialTestResult }>().data;
}

/** The "Set <label> to `<value>`" lines of a credential test's message, in order. */
export function toldToSet(message: string): Array<{ label: string; value: string }> {
	return [...message.matchAll(/Set (.+?) to `([^`]*)`/g)].map((match) => ({ label: match[1].trim(), value: match[2] }));
}

/**
 * The credential fields a user enters after reading the message, as the dialog saves them: each label
 * is a field of the Service API credential (an option by its value or its name) or a Request Names
 * row (its "Sent For" label or concept id in the label). A label that is neither fails, naming it.
 */
export function settingsToldIn(message: string): IDataObject {
	const fields = new Map<string, INodeProperties>();
	for (const property of new ServiceApi().properties) fields.set(property.displayName, property);
	const settings: IDataObject = {};
	const rows: Array<{ concept: string; serviceName: string }> = [];
	for (const { label, value } of toldToSet(message)) {
		const field = fields.get(label.replace(/^Advanced Settings > /, ''));
		if (field) {
			settings[field.name] = fieldValue(field, value, message);
			continue;
		}
		const concept = CONCEPT_IDS.find((id) => label.includes(conceptLabel(id)) || label.includes(id));
		if (/Request Names/i.test(label) && concept) {
			rows.push({ concept, serviceName: value });
			continue;
		}
		throw new Error(`The credential test tells the user to set "${label}", which is no field of the credential:\n${message}`);
	}
	if (rows.length) settings.requestNames = { name: rows };
	return settings;
}

function fieldValue(field: INodeProperties, told: string, message: string): string | number {
	if (field.type === 'number') return Number(told);
	if (field.type !== 'options') return told;
	const option = (field.options ?? []).find((candidate) => 'value' in candidate && (candidate.value === told || candidate.name === told));
	if (!option || !('value' in option)) throw new Error(`"${told}" is no option of ${field.displayName}:\n${message}`);
	return option.value as string;
}
