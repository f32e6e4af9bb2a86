import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import type { Dialect } from './dialect';
import type { ReaderKey, Sandbox } from './index';

/**
 * The credential's Advanced overrides a user of a Service speaking `dialect` must set: only what the
 * nodes cannot detect (the default dialect needs none; the alt one names its cursor, its JSON format
 * and its secret's encoding). The page size is sent only when a test sets one (`advanced.pageSize`).
 */
export function dialectOverrides(dialect: Dialect): IDataObject {
	if (dialect.name === 'default') return {};
	return { cursorParameter: dialect.cursorParameter, jsonFormat: dialect.jsonFormat, secretEncoding: 'hex' };
}

export interface ServiceApiOptions {
	/** One of the sandbox's readers (default `reader`), or a literal token. */
	reader?: ReaderKey;
	token?: string;
	/** More Advanced settings, over the dialect's overrides. */
	advanced?: IDataObject;
	baseUrl?: string;
}

/** The Service API credential as a user of this sandbox would fill it in. */
export function serviceApi(
	sandbox: Sandbox,
	options: ServiceApiOptions = {},
): ICredentialDataDecryptedObject & { advanced: IDataObject } {
	return {
		baseUrl: options.baseUrl ?? sandbox.baseUrl,
		accessToken: options.token ?? sandbox.tokens[options.reader ?? 'reader'],
		advanced: { ...dialectOverrides(sandbox.dialect), ...options.advanced },
	};
}
