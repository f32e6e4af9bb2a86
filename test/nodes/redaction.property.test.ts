import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { CredentialTestContext } from 'n8n-core';

import { createAdditionalData, READER, readerWorkflow, runWorkflow } from '../harness';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';
import { captureLogs } from '../harness/logCapture';
import { runs } from '../property/fc';
import { allFields, expectNoToken, expectNoTokenPart } from '../property/tokenDecoders';
import { TOKEN_FORMS } from '../sandbox/tokenForms';
import { useSandbox } from '../sandbox/useSandbox';
import { serviceCredentials } from './reader/exportHelpers';

/**
 * The access token, sent back by a hostile Service at a random place of a random answer in a random
 * encoding, never reaches an output item, an error or a file name (docs/token-and-limits.md).
 * Files stay byte for byte: only what the node builds from them is redacted.
 */

// '/' and '+' so PHP's '\/' and URL-encoding change it.
const TOKEN = 'svc_reader_Zk9/p+Q2xR7wLm4T';
const sandbox = useSandbox({ tokens: { reader: TOKEN } });

/** The token inside a JSON string literal, each character as itself, as \uXXXX, or '/' as '\/'. */
const escapedToken = fc.array(fc.constantFrom('raw', 'unicode', 'solidus'), { minLength: TOKEN.length, maxLength: TOKEN.length }).map((ways) =>
	[...TOKEN]
		.map((ch, i) => {
			if (ways[i] === 'unicode') return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
			if (ways[i] === 'solidus' && ch === '/') return '\\/';
			return ch;
		})
		.join(''),
);

const around = fc.tuple(fc.stringMatching(/^[A-Za-z ]{0,8}$/), fc.stringMatching(/^[A-Za-z ]{0,8}$/));

type Placement = 'list value' | 'nested value' | 'key' | 'error message' | 'record field' | 'file name' | 'cursor';
const placement = fc.constantFrom<Placement>('list value', 'nested value', 'key', 'error message', 'record field', 'file name', 'cursor');

const catalogue: INodeParameters = { resource: 'webhook', operation: 'getCatalogue' };
const recordGet: INodeParameters = { resource: 'record', operation: 'get', ke: 'KE-1001' };
const portfolioJson: INodeParameters = { resource: 'portfolio', operation: 'getAll', returnAll: true, format: 'json' };

function hostileAnswer(where: Placement, text: string, cursorToken: string): { parameters: INodeParameters; path: string; fault: Record<string, unknown> } {
	const json = 'application/json';
	switch (where) {
		case 'list value':
			return { parameters: catalogue, path: '/v1/reader/webhooks/catalogue', fault: { status: 200, contentType: json, body: `{"data":[{"event_type":"ledger_high","description":"${text}"}]}` } };
		case 'nested value':
			return { parameters: catalogue, path: '/v1/reader/webhooks/catalogue', fault: { status: 200, contentType: json, body: `{"data":[{"event_type":"x","sample":{"ids":["${text}"]}}]}` } };
		case 'key':
			return { parameters: catalogue, path: '/v1/reader/webhooks/catalogue', fault: { status: 200, contentType: json, body: `{"data":[{"event_type":"x","${text}":1}]}` } };
		case 'error message':
			return { parameters: catalogue, path: '/v1/reader/webhooks/catalogue', fault: { status: 400, contentType: json, body: `{"error":{"code":"bad","message":"${text}"}}` } };
		case 'record field':
			return { parameters: recordGet, path: '/v1/reader/exports/records/KE-1001', fault: { status: 200, contentType: json, body: `{"ks":"KS-1","note":"${text}"}` } };
		case 'file name':
			return {
				parameters: recordGet,
				path: '/v1/reader/exports/records/KE-1001',
				fault: { status: 200, contentType: json, body: '{"ks":"KS-1"}', headers: { 'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(cursorToken)}.json` } },
			};
		case 'cursor':
			// Page 1 hands out a cursor holding the token; page 2 (asked with it) fails, and the error names the cursor.
			return {
				parameters: portfolioJson,
				path: '/v1/reader/exports/portfolio',
				fault: { status: 200, contentType: json, body: '{"data":[{"ke":"KE-1"}]}', headers: { 'X-Service-Next-Cursor': cursorToken }, times: 1 },
			};
	}
}

describe('the access token never comes back out, whatever the Service wraps it in', () => {
	afterEach(() => sandbox.control.clearFaults());

	test('not in items, errors or file names, for any placement and escape form', async () => {
		await fc.assert(
			fc.asyncProperty(placement, escapedToken, around, async (where, escaped, [before, after]) => {
				const { parameters, path, fault } = hostileAnswer(where, `${before}${escaped}${after}`, `${before}${TOKEN}${after}`);
				sandbox.control.clearFaults();
				sandbox.control.failRoute({ path, mode: 'answer', ...(fault as { status: number; contentType: string; body: string; times?: number }) });
				const result = await runWorkflow(readerWorkflow(parameters), { credentials: serviceCredentials(sandbox) });
				const error = result.error(READER);
				const seen = JSON.stringify({
					items: result.output(READER).map((item) => ({ json: item.json, files: Object.values(item.binary ?? {}).map((b) => b.fileName) })),
					error: error && { message: error.message, description: error.description },
				});
				expect(seen).not.toContain(TOKEN);
				expect(seen).not.toContain(encodeURIComponent(TOKEN));
				// Something came through: the token was redacted, not the whole answer dropped.
				expect(seen).toMatch(where === 'cursor' ? /\*\*\*|KE-1/ : /\*\*\*/);
			}),
			runs(60),
		);
	}, 120_000);

	type Echo = 'message' | 'code' | 'cursor' | 'wwwAuthenticate' | 'fileName' | 'pageError';
	const echoes: Record<Echo, { parameters: INodeParameters; path: string; status: number }> = {
		message: { parameters: catalogue, path: '/v1/reader/webhooks/catalogue', status: 400 },
		code: { parameters: recordGet, path: '/v1/reader/exports/records/KE-1001', status: 404 },
		cursor: { parameters: portfolioJson, path: '/v1/reader/exports/portfolio', status: 200 },
		wwwAuthenticate: { parameters: catalogue, path: '/v1/reader/webhooks/catalogue', status: 401 },
		fileName: { parameters: recordGet, path: '/v1/reader/exports/records/KE-1001', status: 200 },
		// Page 1 hands out the token as its cursor; page 2, asked with it, fails: the error keeps the cursor (errorResponse).
		pageError: { parameters: portfolioJson, path: '/v1/reader/exports/portfolio', status: 200 },
	};

	test('echoed in URL, JSON and HTML forms (lower-case hex, every byte, \\u, &#x2F;, &sol;...): not in the run data n8n stores, nor in its logs, even decoded', async () => {
		await fc.assert(
			fc.asyncProperty(fc.constantFrom(...TOKEN_FORMS), fc.constantFrom<Echo>('message', 'code', 'cursor', 'wwwAuthenticate', 'fileName', 'pageError'), fc.boolean(), async (form, where, continueOnFail) => {
				const echo = echoes[where];
				sandbox.control.clearFaults();
				if (where === 'pageError') {
					sandbox.control.failRoute({ path: echo.path, mode: 'echoToken', status: 200, form, in: 'cursor', times: 1 });
					sandbox.control.failRoute({ path: echo.path, mode: 'answer', status: 400, contentType: 'application/json', body: '{"error":{"code":"bad_cursor","message":"No such page."}}' });
				} else {
					sandbox.control.failRoute({ path: echo.path, mode: 'echoToken', status: echo.status, form, in: where });
				}
				const logs = captureLogs();
				let stored: string;
				try {
					const workflow = readerWorkflow(echo.parameters, { continueOnFail });
					const result = await runWorkflow(workflow, { credentials: serviceCredentials(sandbox) });
					stored = JSON.stringify({ run: allFields(result.run), logs: logs.lines });
					// The Service's answer did arrive: an error or a file, not nothing.
					expect(result.error(READER) !== undefined || result.output(READER).length > 0).toBe(true);
				} finally {
					logs.restore();
				}
				expectNoToken(stored, TOKEN);
			}),
			runs(40),
		);
	}, 180_000);

	// Check Settings reads many answers and quotes what it saw as evidence: the operation's items and the credential test's message.
	test('echoed by any route Check Settings asks, in any form: not in its items, its run data, the logs, nor the credential test\'s message', async () => {
		const routes = ['/v1/reader/webhooks/catalogue', '/v1/reader/exports/portfolio', '/v1/reader/exports/expiries'] as const;
		await fc.assert(
			// `pad` characters before the token, so that the checks' shortening of the Service's words (a cursor at 12, words at 120 to 220) cuts through it.
			fc.asyncProperty(fc.constantFrom(...TOKEN_FORMS), fc.constantFrom(...routes), fc.constantFrom<Echo>('message', 'code', 'cursor', 'wwwAuthenticate'), fc.nat(240), async (form, path, where, pad) => {
				sandbox.control.clearFaults();
				const status = where === 'wwwAuthenticate' ? 401 : where === 'cursor' ? 200 : 400;
				sandbox.control.failRoute({ path, mode: 'echoToken', status, form, in: where as 'message' | 'code' | 'cursor' | 'wwwAuthenticate', pad });
				const logs = captureLogs();
				let stored: string;
				let message: string;
				try {
					const result = await runWorkflow(readerWorkflow({ resource: 'service', operation: 'checkSettings' }), { credentials: serviceCredentials(sandbox) });
					expect(result.error(READER) !== undefined || result.output(READER).length > 0).toBe(true);
					const context = new CredentialTestContext(createAdditionalData(undefined, {}));
					const tested = await new ServiceReader().methods.credentialTest.serviceApiSettings.call(context, {
						id: 'cred-1',
						name: 'Service API',
						type: 'serviceApi',
						data: serviceCredentials(sandbox).serviceApi,
					});
					message = tested.message;
					stored = JSON.stringify({ run: allFields(result.run), logs: logs.lines });
				} finally {
					logs.restore();
				}
				expectNoTokenPart(stored, TOKEN);
				expectNoTokenPart(message, TOKEN);
			}),
			runs(30),
		);
	}, 180_000);
});
