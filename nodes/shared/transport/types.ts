/** The transport's shared types: a call, its answer, its options, and the contexts that make one (no import back into serviceRequest.ts). */
import type { IDataObject, IExecuteFunctions, IHookFunctions, IHttpRequestMethods, ILoadOptionsFunctions, IPollFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { AnswerKind } from './answer';
import type { RequestScope } from './requestNames';
import type { ServiceSettings } from './settings';

// IWebhookFunctions: the trigger renews its endpoint from a delivery (ServiceTrigger/lifecycle/renewal.ts).
export type ServiceContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | IPollFunctions | IWebhookFunctions;

export interface ServiceCall {
	method: IHttpRequestMethods;
	/** Path from the base URL, e.g. /v1/reader/exports/portfolio. */
	path: string;
	qs?: IDataObject;
	/** JSON body, or raw bytes/text sent with `contentType`. */
	body?: unknown;
	contentType?: string;
	/**
	 * Which request's settable names the body and query carry: written in the documented names,
	 * sent under the credential's Request Names (requestNames.ts).
	 */
	names?: RequestScope;
	/** A file to upload as Import Upload says: the body itself, or one field of a multipart form. */
	upload?: { bytes: Buffer; fileName: string; contentType: string };
	/** How to hand back the answer body: parsed JSON (default), exact bytes, or a stream. */
	response?: AnswerKind;
	/** A file (a GET of bytes or a stream): a redirect is followed without credentials (redirects.ts); any other call refuses one. */
	download?: boolean;
	/** Request headers beside the credential's: the cursor under Send Cursor As Header, a write's idempotency key. */
	headers?: Record<string, string>;
}

export interface ServiceAnswer<T = unknown> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
}

export interface ServiceCallOptions {
	itemIndex?: number;
	/** Statuses handed back to the caller instead of failing (e.g. 404 for "does not share"). */
	allowStatuses?: number[];
	/** Total attempts for 429, and for idempotent methods also 5xx and dropped connections. */
	maxAttempts?: number;
	/**
	 * The credential's settings when the caller has read them already: a paged export makes one
	 * call per page, and each reading decrypts the credential again.
	 */
	settings?: ServiceSettings;
}

