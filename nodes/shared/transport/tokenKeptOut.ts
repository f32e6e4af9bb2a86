/**
 * The boundary every error of the nodes passes on its way to n8n (run data, logs, the editor): each
 * own field of the error, its causes and what they hold is cleared of the access token in every form
 * (../redaction.ts), whatever built it. The nodes' entry points (execute, webhook, webhook methods,
 * poll, list searches, load options) run their work through `keepingTokenOut`.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { tokenRedactors, type TokenRedactors } from '../redaction';
import { CLIENT_GRANT_TYPE, credentialName, secretRedactors } from './credentialKind';


interface CredentialReader {
	getCredentials(type: string, itemIndex?: number): Promise<ICredentialDataDecryptedObject>;
	getNode(): { parameters?: Record<string, unknown> };
}

/** The redactors of the node's credential; none when it cannot be read (then nothing was sent with it). */
export async function credentialRedactors(this: CredentialReader): Promise<TokenRedactors> {
	try {
		return secretRedactors(await this.getCredentials(credentialName(this)));
	} catch {
		return tokenRedactors('');
	}
}

/** Runs `work`; an error it throws is cleared of the token, then thrown on. */
export async function keepingTokenOut<T>(context: CredentialReader, work: () => Promise<T>): Promise<T> {
	try {
		return await work();
	} catch (error) {
		// The same error, as n8n's own (NodeApiError, NodeOperationError) with its item index: only its text changes.
		throw await withoutToken(context, error);
	}
}

/** The error itself, cleared of the token in place; its words name the credential the node uses. */
export async function withoutToken(context: CredentialReader, error: unknown): Promise<unknown> {
	(await credentialRedactors.call(context)).redactError(error);
	if (credentialName(context) === CLIENT_GRANT_TYPE) namingOAuth2(error);
	return error;
}

/** Settings are named "in the Service API credential" where they are made; an OAuth2 user has them in the other one. */
function namingOAuth2(error: unknown): void {
	if (error === null || typeof error !== 'object') return;
	const fields = error as Record<string, unknown>;
	for (const key of ['message', 'description']) {
		const value = fields[key];
		if (typeof value === 'string' && value.includes(ACCESS_TOKEN_WORDS)) fields[key] = value.split(ACCESS_TOKEN_WORDS).join(OAUTH2_WORDS);
	}
}
const ACCESS_TOKEN_WORDS = 'Service API credential';
const OAUTH2_WORDS = 'Service OAuth2 API credential';

/** The same for each function of a methods group (list searches, load options). */
export function methodsKeepingTokenOut<M extends Record<string, (this: never, ...args: never[]) => Promise<unknown>>>(methods: M): M {
	const wrapped: Record<string, unknown> = {};
	for (const [name, method] of Object.entries(methods)) {
		wrapped[name] = async function (this: CredentialReader, ...args: unknown[]) {
			return await keepingTokenOut(this, async () => await (method as (...a: unknown[]) => Promise<unknown>).apply(this, args));
		};
	}
	return wrapped as M;
}
