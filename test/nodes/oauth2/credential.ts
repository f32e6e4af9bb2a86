import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { serviceApi } from '../../sandbox/credential';
import type { Sandbox } from '../../sandbox';
import { OAUTH2_TOKEN_PATH } from '../../sandbox/routes/oauth';

/** The Service OAuth2 API credential a user of the sandbox fills in: the sandbox's token endpoint, the reader's client. */
export function oauth2Credential(sandbox: Sandbox, clientSecret = `client_${sandbox.tokens.reader}`, advanced = {}): ICredentialDataDecryptedObject {
	const { accessToken: _pasted, ...rest } = serviceApi(sandbox, { advanced });
	return {
		...rest,
		grantType: 'clientCredentials',
		accessTokenUrl: `${sandbox.baseUrl}${OAUTH2_TOKEN_PATH}`,
		clientId: 'reader',
		clientSecret,
		authentication: 'body',
		scope: '',
	};
}
