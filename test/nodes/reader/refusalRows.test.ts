import type { IDataObject } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { CONCEPT_IDS, conceptLabel } from '../../../nodes/shared/transport/requestNames';
import type { Sandbox } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';
import { documentedBody, type RequestDialect } from '../../sandbox/requestDialect';
import { speakingSandboxes } from './speakingSandbox';

/**
 * A write refused naming fields in words ("Missing required fields: name, registration_no, email"):
 * the error names each Request Names row to add, and a user who adds exactly those rows gets the
 * invitation created (docs/service-choices.md, "What the nodes send").
 */

const serviceSpeaking = speakingSandboxes();

async function reader(sandbox: Sandbox, parameters: IDataObject, advanced: IDataObject = {}) {
	return await runWorkflow(readerWorkflow(parameters as never), { credentials: { serviceApi: serviceApi(sandbox, { advanced }) } });
}

/** The rows an error tells the user to add, as they fill them in: "Set Request Names > <label> to `<name>`". */
function rowsSaid(message: string): IDataObject {
	const rows: IDataObject[] = [];
	for (const [, label, name] of message.matchAll(/Set Request Names > ([^`]+?) to `([^`]+)`/g)) {
		const concept = CONCEPT_IDS.find((id) => conceptLabel(id) === label);
		expect([label, concept]).toEqual([label, expect.any(String)]);
		rows.push({ concept, serviceName: name });
	}
	return { requestNames: { name: rows } };
}

const invitation = {
	resource: 'invitation',
	operation: 'create',
	companyName: 'Words Ltd',
	registrationNumber: 'GB90000077',
	workEmail: 'buyer@words.example',
	additionalFields: { readerReference: 'W-1' },
};

test('Invitation > Create: "Missing required fields: name, registration_no, email" names the three rows; added, the invitation is created', async () => {
	const names: RequestDialect['names'] = { 'invitation.company_name': 'name', 'invitation.registration_number': 'registration_no', 'invitation.work_email': 'email' };
	const sandbox = await serviceSpeaking({ names, unknownNames: 'refuse', refusalWords: 'missing' });

	const refused = await reader(sandbox, invitation);
	const error = refused.error(READER)!;
	expect(error.message).toBe(
		'The Service answered 422 naming `name`, `registration_no`, `email`, which the node did not send. '
			+ 'Set Request Names > Invitation > Company Name to `name` (sent as `company_name`). '
			+ 'Set Request Names > Invitation > Registration Number to `registration_no` (sent as `registration_number`). '
			+ 'Set Request Names > Invitation > Work Email to `email` (sent as `work_email`). '
			+ '(Request Names under Advanced Settings in the Service API credential.)',
	);
	expect(error.description).toContain('Missing required fields: name, registration_no, email');
	expect(sandbox.control.invitations().filter((i) => i.company_name === 'Words Ltd')).toEqual([]);

	sandbox.control.clearRequests();
	const created = await reader(sandbox, invitation, rowsSaid(error.message));
	expect(created.error(READER)).toBeUndefined();
	const [sent] = sandbox.control.requests({ path: '/v1/reader/invitations' });
	expect(JSON.parse(sent.body)).toEqual({ name: 'Words Ltd', registration_no: 'GB90000077', email: 'buyer@words.example', reader_reference: 'W-1' });
	expect(documentedBody(sandbox.dialect.request, 'invitation', sent.body)).toMatchObject({ company_name: 'Words Ltd', work_email: 'buyer@words.example' });
	expect(created.output(READER)[0].json).toMatchObject({ company_name: 'Words Ltd', registration_number: 'GB90000077', reader_reference: 'W-1' });
});

test('a field name two rows fit as well is never picked: both rows are named', async () => {
	const sandbox = await serviceSpeaking({ names: { 'invitation.reader_reference': 'reference_number' }, unknownNames: 'refuse', refusalWords: 'missing' });
	// Reader Reference is optional where this Service lists what it misses: its refusal is written here as one that requires it.
	sandbox.control.failRoute({ path: '/v1/reader/invitations', method: 'POST', mode: 'answer', status: 422, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Unprocessable', status: 422, errors: [{ pointer: '/reference_number', detail: 'is required' }] }) });
	const refused = await reader(sandbox, invitation);
	expect(refused.error(READER)?.message).toBe(
		'The Service answered 422 naming `reference_number`, which the node did not send. `reference_number` may be any of Invitation > Registration Number, Invitation > Reader Reference: '
			+ 'set the one it is (Request Names > Invitation > Registration Number or Request Names > Invitation > Reader Reference) to `reference_number`. '
			+ '(Request Names under Advanced Settings in the Service API credential.)',
	);
});
