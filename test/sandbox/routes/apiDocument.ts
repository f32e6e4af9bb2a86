import type { Route } from '../context';
import type { Dialect } from '../dialect';
import { HttpError } from '../http';
import { nameFor } from '../requestDialect';
import type { RequestConcept } from '../../../nodes/shared/transport/requestNames';

/**
 * The dialect's published API document (answers.apiDocument): OpenAPI 3 at /openapi.json, the
 * writes' request bodies in this dialect's own request names (under `$ref`s, as documents write
 * them; JSON:API bodies under data.attributes), and the webhook creation's answer with an example
 * secret in this dialect's form. Off: the path is no route, as before.
 */
export function apiDocument(dialect: Dialect): Record<string, unknown> {
	const name = (concept: RequestConcept) => nameFor(dialect.request, concept);
	const text = { type: 'string' };
	const body = (ref: string) => {
		const plain = { $ref: `#/components/schemas/${ref}` };
		const schema = dialect.envelope === 'jsonapi' ? { type: 'object', properties: { data: { type: 'object', properties: { type: text, attributes: plain } } } } : plain;
		const media = dialect.envelope === 'jsonapi' ? 'application/vnd.api+json' : 'application/json';
		return { required: true, content: { [media]: { schema } } };
	};
	const write = (ref: string) => ({ requestBody: body(ref), responses: { '201': { description: 'Created' } } });
	return {
		openapi: '3.0.3',
		info: { title: 'Service reader API', version: '1' },
		paths: {
			'/v1/reader/invitations': { post: write('Invitation') },
			'/v1/reader/webhooks': {
				post: {
					requestBody: body('WebhookEndpoint'),
					responses: { '201': { description: 'The endpoint', content: { 'application/json': { schema: { $ref: '#/components/schemas/CreatedEndpoint' } } } } },
				},
			},
			'/v1/reader/policy-runs': { post: write('PolicyRun') },
			'/v1/reader/sso': { put: write('Sso') },
		},
		components: {
			schemas: {
				Invitation: {
					type: 'object',
					required: [name('invitation.company_name'), name('invitation.registration_number'), name('invitation.work_email')],
					properties: {
						[name('invitation.company_name')]: text,
						[name('invitation.registration_number')]: text,
						[name('invitation.work_email')]: { type: 'string', format: 'email' },
						[name('invitation.reader_reference')]: text,
					},
				},
				WebhookEndpoint: { type: 'object', properties: { [name('webhook.url')]: { type: 'string', format: 'uri' } } },
				CreatedEndpoint: {
					type: 'object',
					properties: { id: text, [name('webhook.url')]: text, secret: { type: 'string', example: dialect.newSecret() }, created_at: text },
				},
				PolicyRun: { type: 'object', properties: { [name('policyRun.ke')]: text } },
				Sso: {
					allOf: [
						{ type: 'object', properties: { [name('sso.provider_type')]: { type: 'string', enum: ['oidc', 'saml'] } } },
						{
							type: 'object',
							properties: {
								[name('sso.email_domains')]: { type: 'array', items: text },
								[name('sso.group_role_mapping')]: { type: 'array', items: { $ref: '#/components/schemas/GroupRole' } },
							},
						},
					],
				},
				GroupRole: { type: 'object', properties: { [name('sso.group_role_mapping.group')]: text, [name('sso.group_role_mapping.role')]: text } },
			},
		},
	};
}

export const apiDocumentRoutes: Route[] = [
	{
		method: 'GET',
		pattern: /^\/openapi\.json$/,
		access: 'public',
		handler: (ctx) => {
			if (ctx.sandbox.dialect.answers.apiDocument !== true) throw new HttpError(404, 'not_found', `No route GET ${ctx.url.pathname}.`);
			// As published: not worded or shaped as the dialect's answers are.
			ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
			ctx.res.end(JSON.stringify(apiDocument(ctx.sandbox.dialect)));
		},
	},
];
