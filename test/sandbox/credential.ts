import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import type { Dialect } from './dialect';
import type { ReaderKey, Sandbox } from './index';

/**
 * The credential's Advanced Settings a user of a Service speaking `dialect` must set: only what the
 * nodes cannot detect (the default dialect needs none; the alt one names its cursor and its JSON
 * format: its hex signing secret is read by Secret Encoding's Detect). The page size is sent only when a test sets one (`advanced.pageSize`).
 */
export function dialectOverrides(dialect: Dialect): IDataObject {
	if (dialect.name === 'default') return { ...signInSettings(dialect), ...cursorSettings(dialect) };
	return { cursorParameter: dialect.cursorParameter, jsonFormat: dialect.jsonFormat, ...requestSettings(dialect), ...signInSettings(dialect), ...cursorSettings(dialect) };
}

/** Send Cursor As (Cursor Header Name) as a user of a Service reading the cursor from a header sets it (nothing for the query). */
export function cursorSettings(dialect: Dialect): IDataObject {
	return dialect.cursorIn.in === 'header' ? { cursorPlacement: 'header', cursorHeaderName: dialect.cursorIn.header } : {};
}

/** Send Token As (Token Header Name, Token Scheme) as a user of this dialect sets it (nothing for a bearer token). */
export function signInSettings(dialect: Dialect): IDataObject {
	const signIn = dialect.signIn;
	if (signIn.form === 'header') return { tokenPlacement: 'header', authHeaderName: signIn.header };
	if (signIn.form === 'scheme') return { tokenPlacement: 'scheme', authScheme: signIn.scheme };
	return {};
}

/** Request Names and Import Upload as a user of this dialect fills them in (nothing where it reads the documented names). */
export function requestSettings(dialect: Dialect): IDataObject {
	const rows = Object.entries(dialect.request.names).map(([concept, serviceName]) => ({ concept, serviceName }));
	const upload = dialect.request.importUpload;
	return {
		...(rows.length ? { requestNames: { name: rows } } : {}),
		...(upload.form === 'multipart' ? { importUpload: 'multipart', importFormField: upload.field } : {}),
	};
}

export interface ServiceApiOptions {
	/** One of the sandbox's readers (default `reader`), or a literal token. */
	reader?: ReaderKey;
	token?: string;
	/** More Advanced Settings, over the dialect's overrides. */
	advanced?: IDataObject;
	baseUrl?: string;
}

/** The Advanced Settings as the credential dialog saves them: the switch on with its fields, or nothing. */
export function dialogFields(advanced: IDataObject): IDataObject {
	return Object.keys(advanced).length ? { advancedSettings: true, ...advanced } : {};
}

/** The Service API credential as a user of this sandbox fills it in the credential dialog. */
export function serviceApi(sandbox: Sandbox, options: ServiceApiOptions = {}): ICredentialDataDecryptedObject {
	return {
		baseUrl: options.baseUrl ?? sandbox.baseUrl,
		accessToken: options.token ?? sandbox.tokens[options.reader ?? 'reader'],
		...dialogFields({ ...dialectOverrides(sandbox.dialect), ...options.advanced }),
	};
}
