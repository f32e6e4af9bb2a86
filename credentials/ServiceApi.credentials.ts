import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	IHttpRequestOptions,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
			displayName: 'Advanced',
			name: 'advanced',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			description: 'Settings the Service specification leaves open. The defaults fit the documented Service; change them only if yours differs.',
			options: [
				{
					displayName: 'Cursor Parameter',
					name: 'cursorParameter',
					type: 'string',
					default: 'cursor',
					description: 'Name of the query parameter that sends back the X-Service-Next-Cursor value to fetch the next page',
				},
				{
					displayName: 'Page Size',
					name: 'pageSize',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 100,
					description: 'Rows per page to ask for. Sent only when Page Size Parameter is set.',
				},
				{
					displayName: 'Page Size Parameter',
					name: 'pageSizeParameter',
					type: 'string',
					default: '',
					placeholder: 'page_size',
					description: 'Name of the query parameter that sets the page size. Leave empty to use the Service\'s default page size.',
				},
				{
					displayName: 'Secret Encoding',
					name: 'secretEncoding',
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
					type: 'options',
					options: [
						{ name: 'Base64', value: 'base64' },
						{ name: 'Hex', value: 'hex' },
					],
					default: 'hex',
					description: 'How the v1 part of the Service-Signature header is encoded',
				},
				{
					displayName: 'Webhook Signing Secret',
					name: 'webhookSigningSecret',
					type: 'string',
					typeOptions: { password: true },
					default: '',
					description: 'Signing secret of a webhook endpoint you created outside n8n for this workflow\'s URL. When set, the Service Trigger registers no endpoint of its own and verifies every delivery with this secret.',
				},
			],
		},
	];

	// A function, not the declarative `{ type: 'generic' }` block: n8n evaluates a declarative block
	// as an expression for every request (in n8n 2.40's isolated expression engine, milliseconds
	// per page of an export); a function just sets the header.
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => ({
		...requestOptions,
		headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.accessToken ?? '')}` },
	});

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/v1/reader/webhooks/catalogue',
			method: 'GET',
		},
	};
}
