/**
 * Which credential a node uses (its Authentication parameter: Access Token or OAuth2) and the secrets
 * that credential carries: what is sent (taken out of every answer and error), and the key stored text is
 * sealed under, stable for the credential (an OAuth2 access token is replaced every few minutes).
 */
import { tokenRedactors, type TokenRedactors } from '../redaction';

export const ACCESS_TOKEN_CREDENTIAL = 'serviceApi';
export const CLIENT_GRANT_TYPE = 'serviceOAuth2Api';
export type ServiceCredentialName = typeof ACCESS_TOKEN_CREDENTIAL | typeof CLIENT_GRANT_TYPE;

/** The node's `authentication` value choosing the OAuth2 credential; anything else (or none: workflows from before it) is the Access Token one. */
export const OAUTH2_AUTHENTICATION = 'oAuth2';

/** The credential the node's Authentication names. */
export function credentialName(context: { getNode(): { parameters?: Record<string, unknown> } }): ServiceCredentialName {
	return context.getNode().parameters?.authentication === OAUTH2_AUTHENTICATION ? CLIENT_GRANT_TYPE : ACCESS_TOKEN_CREDENTIAL;
}

export interface CredentialSecrets {
	/** The token the Service is sent: the Access Token, or the OAuth2 access token n8n fetched ('' before the first). */
	accessToken: string;
	/** Every secret to keep out of what the nodes output: the token, and the OAuth2 client secret. */
	secrets: string[];
	/** What stored text is sealed under: the Access Token, or the OAuth2 Client Secret (which outlives its tokens). */
	sealKey: string;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** Read by shape: an OAuth2 credential is the one with a client secret or token data. Pure. */
export function credentialSecrets(credentials: Record<string, unknown>): CredentialSecrets {
	const tokenData = credentials.oauthTokenData;
	const isOAuth2 = 'clientSecret' in credentials || 'oauthTokenData' in credentials || 'grantType' in credentials;
	if (!isOAuth2) {
		const accessToken = text(credentials.accessToken);
		return { accessToken, secrets: [accessToken], sealKey: accessToken };
	}
	const accessToken = tokenData !== null && typeof tokenData === 'object' ? text((tokenData as Record<string, unknown>).access_token) : '';
	const refreshToken = tokenData !== null && typeof tokenData === 'object' ? text((tokenData as Record<string, unknown>).refresh_token) : '';
	const clientSecret = text(credentials.clientSecret);
	return { accessToken, secrets: [accessToken, clientSecret, refreshToken].filter((s) => s !== ''), sealKey: clientSecret };
}

/** The redactors of every secret of the credential, one after the other. */
export function secretRedactors(credentials: Record<string, unknown>): TokenRedactors {
	return combinedRedactors(credentialSecrets(credentials).secrets.map(tokenRedactors));
}

export function combinedRedactors(all: TokenRedactors[]): TokenRedactors {
	if (all.length === 1) return all[0];
	if (all.length === 0) return tokenRedactors('');
	return {
		redact: (value) => all.reduce((out, r) => r.redact(out), value),
		redactBytes: (bytes) => all.reduce((out, r) => r.redactBytes(out), bytes),
		redactValue: (value) => all.reduce((out, r) => r.redactValue(out), value),
		redactFileName: (name) => all.reduce((out, r) => r.redactFileName(out), name),
		redactError: (error) => all.forEach((r) => r.redactError(error)),
	};
}
