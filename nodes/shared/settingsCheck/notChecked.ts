/**
 * Finding 10: what only writing would tell, said and never tried (the check sends GETs only).
 */
import { conceptLabel, CONCEPT_IDS, REQUEST_CONCEPTS } from '../transport/requestNames';
import { finding, labelOf, optionShown } from './current';
import type { Current } from './current';
import type { Finding } from './types';

function shownNow(current: Current, field: string, fallback: string): string {
	const value = typeof current.advanced[field] === 'string' && current.advanced[field] !== '' ? String(current.advanced[field]) : fallback;
	return optionShown(field, value) ?? value;
}

export function notChecked(current: Current): Finding[] {
	const writes = CONCEPT_IDS.filter((id) => REQUEST_CONCEPTS[id].scope !== 'export' && REQUEST_CONCEPTS[id].where !== 'type');
	const types = CONCEPT_IDS.filter((id) => REQUEST_CONCEPTS[id].where === 'type');
	const list = (fields: string[]) => fields.map((field) => labelOf(field)).join(', ');
	return [
		finding('Webhook Signing', 'not_checked', `${list(['signingKeyEncoding', 'signatureEncoding', 'signatureTimestampUnit'])}: only creating a webhook endpoint shows the secret, and only a delivery its signature; the check creates nothing. On Detect (the default) the Service Trigger learns them from the first genuine delivery, and names a set one that does not fit.`, {
			current: `${shownNow(current, 'signingKeyEncoding', 'auto')}; ${shownNow(current, 'signatureEncoding', 'auto')}; ${shownNow(current, 'signatureTimestampUnit', 'auto')}`,
		}),
		finding('Invitation Import', 'not_checked', `${list(['importUpload', 'importFormField'])}: only uploading an import shows how the Service takes the file; the check uploads nothing. Invitation > Import names the setting when the Service refuses the upload.`, {
			current: shownNow(current, 'importUpload', 'csv'),
		}),
		finding('Request Names of Writes', 'not_checked', `${writes.map((id) => conceptLabel(id)).join(', ')}: only sending a body shows the names the Service reads; the check sends none. A refusal naming a field names the Request Names row.`),
		finding('JSON:API Type', 'not_checked', `${types.map((id) => conceptLabel(id)).join(', ')}: only a write shows whether the Service takes JSON:API bodies.`),
		finding('SSO Passkey', 'not_checked', 'Setting the SSO configuration needs a recent passkey confirmation by a reader admin; the check sets nothing.'),
	];
}
