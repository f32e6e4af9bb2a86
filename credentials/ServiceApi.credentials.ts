import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	IHttpRequestOptions,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { advancedSettings } from '../nodes/shared/transport/advancedSettings';

export class ServiceApi implements ICredentialType {
	name = 'serviceApi';

	displayName = 'Service API';

	icon = { light: 'file:../icons/service.svg', dark: 'file:../icons/service.dark.svg' } as const;

	documentationUrl = 'https://github.com/service-reader/n8n-nodes-service-reader#credentials-service-api';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://service.example.com',
			description: 'Address of your Service, starting with https://. Paths such as /v1/reader are added by the node.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The reader organisation\'s service access token, sent as a bearer token',
		},
		{
			displayName: 'Advanced Settings',
			name: 'advancedSettings',
			type: 'boolean',
			default: false,
			description: 'Whether to change settings the Service specification leaves open (the defaults fit the documented Service)',
		},
		{
			displayName: 'Cursor Parameter',
			name: 'cursorParameter',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'string',
			default: 'cursor',
			description: 'Name of the query parameter that sends back the X-Service-Next-Cursor value to fetch the next page',
		},
		{
			displayName: 'JSON Format Value',
			name: 'jsonFormat',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'string',
			default: 'json',
			description: 'The value of the format query parameter that asks an export for JSON instead of CSV',
		},
		{
			displayName: 'Max Pages',
			name: 'maxPages',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 100000,
			description: 'Most pages one list follows; a list that goes on longer fails instead of paging for ever',
		},
		{
			displayName: 'Max Response Size (MiB)',
			name: 'maxResponseSize',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 64,
			description: 'Largest answer read into memory; larger ones fail the item (CSV files and audit packs are streamed: see Max File Size)',
		},
		{
			displayName: 'Max File Size (MiB)',
			name: 'maxFileSize',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 10240,
			description: 'Largest file a node writes (a CSV export as one file, an audit pack), counted after decompression; larger ones fail the item',
		},
		{
			displayName: 'Page Size',
			name: 'pageSize',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 100,
			description: 'Rows per page to ask for. Sent only when Page Size Parameter is set.',
		},
		{
			displayName: 'Page Size Parameter',
			name: 'pageSizeParameter',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'string',
			default: '',
			placeholder: 'page_size',
			description: 'Name of the query parameter that sets the page size. Leave empty to use the Service\'s default page size.',
		},
		{
			displayName: 'Request Timeout (Seconds)',
			name: 'requestTimeout',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 60,
			description: 'Longest time for one attempt of a request, from connect to the last byte of an answer (a streamed file: longest pause)',
		},
		{
			displayName: 'Secret Encoding',
			name: 'signingKeyEncoding',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'options',
			options: [
				{
					name: 'Base64 (Optional Whsec_ Prefix)',
					value: 'base64',
					description: 'Secret looks like whsec_… followed by base64 text',
				},
				{
					name: 'Hex',
					value: 'hex',
				},
				{
					name: 'Raw Text',
					value: 'raw',
					description: 'The secret\'s characters are the key itself',
				},
			],
			default: 'base64',
			description: 'How the webhook signing secret is decoded into the HMAC key',
		},
		{
			displayName: 'Signature Encoding',
			name: 'signatureEncoding',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'options',
			options: [
				{ name: 'Base64', value: 'base64' },
				{ name: 'Detect (Hex or Base64)', value: 'auto' },
				{ name: 'Hex', value: 'hex' },
			],
			default: 'auto',
			description: 'How the v1 part of the Service-Signature header is encoded',
		},
		{
			displayName: 'Signature Timestamp Unit',
			name: 'signatureTimestampUnit',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'options',
			options: [
				{
					name: 'Detect (Seconds or Milliseconds)',
					value: 'auto',
					description: 'Told apart by size: 13 digits today are milliseconds, 10 are seconds',
				},
				{ name: 'Milliseconds', value: 'milliseconds' },
				{ name: 'Seconds', value: 'seconds' },
			],
			default: 'auto',
			description: 'The unit of the t part of the Service-Signature header',
		},
		{
			displayName: 'CSV Delimiter',
			name: 'csvDelimiter',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'options',
			options: [
				{ name: 'Comma', value: 'comma' },
				{
					name: 'Detect From the Header Row',
					value: 'auto',
					description: 'The one of comma, semicolon, tab and pipe that occurs most in the header row',
				},
				{ name: 'Pipe', value: 'pipe' },
				{ name: 'Semicolon', value: 'semicolon' },
				{ name: 'Tab', value: 'tab' },
			],
			default: 'auto',
			description: 'What separates the cells of the Service\'s CSV exports',
		},
		{
			displayName: 'CSV Header Row on Later Pages',
			name: 'csvHeaderRepeat',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'options',
			options: [
				{
					name: 'Detect',
					value: 'auto',
					description: 'A later page\'s first row that equals the first page\'s header row is that header again',
				},
				{ name: 'Every Page', value: 'every', description: 'Every page starts with the header row' },
				{ name: 'First Page Only', value: 'first', description: 'Later pages hold data rows only' },
			],
			default: 'auto',
			description: 'Whether each page of a paged CSV export starts with the header row',
		},
		{
			displayName: 'Webhook Signing Secret',
			name: 'webhookSigningSecret',
			displayOptions: { show: { advancedSettings: [true] } },
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Signing secret of a webhook endpoint you created outside n8n for this workflow\'s URL. When set, the Service Trigger registers no endpoint of its own and verifies every delivery with this secret.',
		},
	];

	// A function, not the declarative `{ type: 'generic' }` block (n8n evaluates that as an expression
	// per request). It also keeps the token on the Service: https and the Base URL's origin only, and
	// no redirects, for every request made with this credential, the credential test included.
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const baseUrl = String(credentials.baseUrl ?? '').trim();
		if (!URL.canParse(baseUrl) || new URL(baseUrl).protocol !== 'https:') {
			throw new Error(`The Base URL "${baseUrl}" must be an https:// address: the access token is sent over HTTPS only.`);
		}
		const legacyUri = (requestOptions as { uri?: string }).uri;
		const target = requestOptions.url ?? legacyUri ?? '';
		const origin = URL.canParse(target, requestOptions.baseURL ?? baseUrl)
			? new URL(target, requestOptions.baseURL ?? baseUrl).origin
			: '';
		if (origin !== new URL(baseUrl).origin) {
			throw new Error(`The access token is sent to the Base URL's host only, not to ${origin || 'this address'}.`);
		}
		const seconds = Number(advancedSettings(credentials).requestTimeout ?? 60);
		return {
			...requestOptions,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: requestOptions.timeout ?? (Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000),
			headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.accessToken ?? '')}` },
		};
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/v1/reader/webhooks/catalogue',
			method: 'GET',
			disableFollowRedirect: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: { value: 401, message: 'The Service rejected the access token (401): check the Access Token' },
			},
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The Service answered with a redirect (${value}), which is not followed so the token never leaves it: check the Base URL`,
				},
			})),
		],
	};
}
