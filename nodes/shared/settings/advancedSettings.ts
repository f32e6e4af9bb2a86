/**
 * The credential's Advanced Settings: the switch and the fields it shows, and what the credential
 * holds while it is on (the nodes' settings and the credential's own timeout read it).
 */
import type { INodeProperties } from 'n8n-workflow';

import { CONCEPT_IDS, conceptLabel, documentedName, REQUEST_CONCEPTS } from './requestConcepts';

/** The Advanced Settings switch and, behind it, every setting the Service specification leaves open. */
/** The Service's address, the same field in both credentials. */
export const baseUrlField: INodeProperties = {
	displayName: 'Base URL',
	name: 'baseUrl',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'https://service.example.com',
	description: 'Address of your Service, starting with https://. Paths such as /v1/reader are added by the node.',
};

export const advancedSettingsFields: INodeProperties[] = [
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
		type: 'string',
		default: 'cursor',
		description: 'Name of the query parameter that sends back the X-Service-Next-Cursor value to fetch the next page',
		displayOptions: { show: { advancedSettings: [true], cursorPlacement: ['query'] } },
	},
	{
		displayName: 'Send Cursor As',
		name: 'cursorPlacement',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'options',
		options: [
			{ name: 'Query Parameter', value: 'query', description: 'In the query, under Cursor Parameter' },
			{ name: 'Header', value: 'header', description: 'In a request header, under Cursor Header Name' },
		],
		default: 'query',
		description: 'How the X-Service-Next-Cursor value is sent back for the next page. A Service that ignores it answers the first page again: lists then stop naming this setting.',
	},
	{
		displayName: 'Cursor Header Name',
		name: 'cursorHeaderName',
		displayOptions: { show: { advancedSettings: [true], cursorPlacement: ['header'] } },
		type: 'string',
		default: 'X-Service-Cursor',
		description: 'The request header the Service reads the cursor from, exactly as it names it',
	},
	{
		displayName: 'Idempotency Header',
		name: 'idempotencyHeader',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'string',
		default: 'Idempotency-Key',
		description: 'Header carrying a key the same for a write and its repeats within one execution and item, so a Service that honours it never acts twice. Empty: none is sent.',
	},
	{
		displayName: 'Job Wait (Seconds)',
		name: 'jobWait',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 300,
		description: 'Longest wait for a job the Service accepted with 202 (a Location or status URL to follow), from its acceptance to its result; a job still running then fails the item',
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
		displayName: 'Import Upload',
		name: 'importUpload',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'options',
		options: [
			{ name: 'CSV Body', value: 'csv', description: 'The file as the request body, sent as text/csv' },
			{ name: 'Multipart Form', value: 'multipart', description: 'The file in one field of a multipart/form-data form' },
		],
		default: 'csv',
		description: 'How Invitation > Import uploads its CSV file',
	},
	{
		displayName: 'Import Form Field',
		name: 'importFormField',
		displayOptions: { show: { advancedSettings: [true], importUpload: ['multipart'] } },
		type: 'string',
		default: 'file',
		description: 'The form field the Service reads the CSV file from',
	},
	{
		displayName: 'Request Names',
		name: 'requestNames',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Request Name',
		default: {},
		description: 'The names your Service gives the fields and query parameters the nodes send, where the Service specification does not show them. Leave empty for the documented names.',
		options: [
			{
				displayName: 'Name',
				name: 'name',
				values: [
					{
						displayName: 'Sent For',
						name: 'concept',
						type: 'options',
						options: CONCEPT_IDS.map((id) => ({
							name: conceptLabel(id),
							value: id,
							description: REQUEST_CONCEPTS[id].where === 'type' ? 'Set: the body goes as JSON:API, its fields under data.attributes, with this data.type' : `Documented name: ${documentedName(id)}`,
						})),
						default: 'invitation.company_name',
						description: 'What the field or parameter carries',
					},
					{
						displayName: 'Service Name',
						name: 'serviceName',
						type: 'string',
						default: '',
						placeholder: 'companyName',
						description: 'The name exactly as the Service spells it; a path with dots (data.attributes.name) nests it',
					},
				],
			},
		],
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
		displayName: 'Send Token As',
		name: 'tokenPlacement',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'options',
		options: [
			{ name: 'Another Authorization Scheme', value: 'scheme', description: 'Authorization: &lt;scheme&gt; &lt;token&gt;, e.g. Token' },
			{ name: 'Another Header', value: 'header', description: 'The token alone in a header of its own, e.g. X-Api-Key' },
			{ name: 'Authorization: Bearer', value: 'bearer', description: 'Authorization: Bearer &lt;token&gt;' },
		],
		default: 'bearer',
		description: 'How the access token is sent with every request (still to the Base URL\'s https origin only)',
	},
	{
		displayName: 'Token Header Name',
		name: 'authHeaderName',
		displayOptions: { show: { advancedSettings: [true], tokenPlacement: ['header'] } },
		type: 'string',
		default: 'X-Api-Key',
		description: 'The header the Service reads the token from, exactly as it names it',
	},
	{
		displayName: 'Token Scheme',
		name: 'authScheme',
		displayOptions: { show: { advancedSettings: [true], tokenPlacement: ['scheme'] } },
		type: 'string',
		default: 'Token',
		description: 'The word before the token in the Authorization header',
	},
	{
		displayName: 'Secret Encoding',
		name: 'signingKeyEncoding',
		displayOptions: { show: { advancedSettings: [true] } },
		type: 'options',
		options: [
			{
				name: 'Detect',
				value: 'auto',
				description: 'Each reading of the secret is tried; the one a genuine delivery verifies under is kept',
			},
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
		default: 'auto',
		description: 'How the webhook signing secret is decoded into the HMAC key. Detect tries hex, base64 and the text itself, and keeps the one a delivery verifies under.',
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

/** The credential's advanced settings: its fields while the Advanced Settings switch is on, else none (the defaults apply). */
export function advancedSettings(credentials: Record<string, unknown>): Record<string, unknown> {
	return credentials.advancedSettings === true ? credentials : {};
}
