/** A call in the Service's names (Request Names, Import Upload, JSON:API), and what it carries for the words of a refusal. */
import type { IDataObject } from 'n8n-workflow';

import { JSON_API_TYPE, jsonApiBody } from './envelopes';
import type { SentRequest } from './requestNames';
import { conceptLabel, CONCEPT_IDS, multipartBody, REQUEST_CONCEPTS, spokenRequest } from './requestNames';
import type { ServiceSettings } from './settings';
import type { ServiceCall } from './types';

/** The call as the Service is to get it (Request Names, Import Upload), and what it carries for the words of a refusal. */
export function speak(call: ServiceCall, settings: ServiceSettings): { call: ServiceCall; request: SentRequest; flat?: unknown; envelope: { typeConcept?: string; type?: string } } {
	const { body, qs, sent } = spokenRequest(call.names, call.body, call.qs, { names: settings.requestNames, jsonFormat: settings.jsonFormat });
	const spoken: ServiceCall = { ...call, body, qs: qs as IDataObject | undefined };
	// JSON:API: a body whose names lead into data.attributes, or whose JSON:API Type is set (envelopes.ts).
	const typeConcept = CONCEPT_IDS.find((id) => REQUEST_CONCEPTS[id].scope === call.names && REQUEST_CONCEPTS[id].where === 'type');
	const envelope: { typeConcept?: string; type?: string } = { typeConcept: typeConcept === undefined ? undefined : conceptLabel(typeConcept) };
	if (typeConcept !== undefined && call.contentType === undefined && !call.upload) {
		const enveloped = jsonApiBody(body, settings.requestNames.get(typeConcept), call.path);
		if (enveloped.type !== undefined) {
			Object.assign(spoken, { body: enveloped.body, contentType: JSON_API_TYPE });
			envelope.type = enveloped.type;
			return { call: spoken, request: { scope: call.names, sent }, flat: body, envelope };
		}
	}
	if (!call.upload) return { call: spoken, request: { scope: call.names, sent }, envelope };
	const upload = settings.importUpload;
	if (upload.form === 'multipart') {
		const form = multipartBody(upload.field, call.upload.fileName, call.upload.contentType, call.upload.bytes);
		Object.assign(spoken, { body: form.body, contentType: form.contentType });
	} else {
		Object.assign(spoken, { body: call.upload.bytes, contentType: call.upload.contentType });
	}
	return { call: spoken, request: { scope: call.names, sent, upload }, envelope };
}

