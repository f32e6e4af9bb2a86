/**
 * The Service API credential's Test (the nodes' `methods.credentialTest.serviceApiSettings`, named by
 * their `testedBy`): Check Settings over the credential test's probe, as one message. n8n shows its
 * own words on OK and ours on Error, so anything left to change is an Error.
 */
import type { ICredentialDataDecryptedObject, ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

import { advancedSettings } from './settings/advancedSettings';
import { tokenRedactors } from './redaction';
import { authenticateServiceRequest } from './transport/authenticate';
import { checkSettings, settingsMessage, type CheckedCredential } from './settingsCheck';
import { credentialTestProbe } from './transport/credentialTestProbe';
import { CLIENT_GRANT_TYPE, secretRedactors } from './transport/credentialKind';
import { readServiceSettings } from './transport/settings';

export const CREDENTIAL_TEST = 'serviceApiSettings';

/** The credential as the checks see it: Base URL and Advanced Settings, never the token. */
export function checkedCredential(data: ICredentialDataDecryptedObject): CheckedCredential {
	const { accessToken: _token, baseUrl: _baseUrl, advancedSettings: _switch, ...advanced } = advancedSettings(data);
	return { baseUrl: String(data.baseUrl ?? '').trim(), advanced };
}

/** Why the credential cannot be used at all (an http:// Base URL, an empty token, an unusable Send Token As), in `authenticate`'s words; nothing is sent. */
export async function refusedCredential(data: ICredentialDataDecryptedObject): Promise<string | undefined> {
	// An OAuth2 credential's token is n8n's to fetch and send: nothing of authenticate's applies.
	if ('grantType' in data || 'clientSecret' in data) return undefined;
	try {
		await authenticateServiceRequest(data, { url: String(data.baseUrl ?? '').trim(), method: 'GET' });
		return undefined;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}

export async function serviceApiSettings(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	if (credential.type === CLIENT_GRANT_TYPE) return oauth2CredentialTest(data);
	const { redact } = tokenRedactors(typeof data.accessToken === 'string' ? data.accessToken : '');
	const refused = await refusedCredential(data);
	if (refused !== undefined) return { status: 'Error', message: redact(refused) };
	try {
		const findings = await checkSettings(credentialTestProbe(this, data), checkedCredential(data));
		const { ok, message } = settingsMessage(findings);
		return { status: ok ? 'OK' : 'Error', message: redact(message) };
	} catch (error) {
		return { status: 'Error', message: redact(`Check Settings could not finish: ${error instanceof Error ? error.message : String(error)}`) };
	}
}

/**
 * The OAuth2 credential's Test holds no token (n8n's dialog fetches one with its own button): it checks what it
 * can without one, the Base URL and Advanced Settings; Service > Check Settings in a node checks the rest.
 */
function oauth2CredentialTest(data: ICredentialDataDecryptedObject): INodeCredentialTestResult {
	const read = readServiceSettings(data);
	if (read.problem !== undefined) return { status: 'Error', message: secretRedactors(data).redact(read.problem) };
	return { status: 'OK', message: 'Base URL and Advanced Settings are usable. Run Service > Check Settings in a Service Reader node to check them against the Service.' };
}

/** The `methods.credentialTest` of each node using the credential. */
export const credentialTest = { [CREDENTIAL_TEST]: serviceApiSettings };
