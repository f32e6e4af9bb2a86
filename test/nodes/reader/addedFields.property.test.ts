import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../sandbox/useSandbox';
import { verificationBody } from '../../sandbox/routes/verify';
import { runs } from '../../property/fc';
import { SECRET_NOTICE } from '../../../nodes/ServiceReader/actions/webhook/createEndpoint.operation';
import { STATEMENT_LOCATION, STATEMENT_NOTE } from '../../../nodes/ServiceReader/actions/policyRun/create.operation';
import { fileItem, READER, runReader } from './helpers';

/**
 * The `_reader` rule through the real node (docs/service-choices.md, "Fields the nodes add"): whatever
 * fields a Service's answer carries, named like every field an operation adds (and like its holder,
 * `_reader`, `__reader`), each one is in the item exactly as sent, and each value the node adds is found
 * beside them or in the one `_…_reader` object. Answers are drawn; the route answers what was drawn.
 */
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

type Fields = Record<string, unknown>;
const own = (record: Fields, name: string) => Object.prototype.hasOwnProperty.call(record, name);

/** Service fields named like `names` and like the holder, any JSON values. */
const colliding = (names: readonly string[]) =>
	fc.dictionary(fc.constantFrom(...names, '_reader', '__reader', 'reader', 'other'), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 6 });

/** The node's value of `name`: beside the Service's fields, or in the `_…_reader` object no Service field is named. */
function nodeValue(item: Fields, sent: Fields, name: string): unknown {
	if (!own(sent, name)) return item[name];
	const holders = Object.keys(item).filter((key) => /^_+reader$/.test(key) && !own(sent, key));
	expect(holders.length).toBeLessThanOrEqual(1);
	const holder = holders.length === 1 ? (item[holders[0]] as Fields) : {};
	return own(holder, name) ? holder[name] : sent[name];
}

/** Every field the Service sent, as sent (JSON round trip: what n8n stores). */
function keptAsSent(item: Fields, sent: Fields): void {
	const asSent = JSON.parse(JSON.stringify(sent)) as Fields;
	for (const key of Object.keys(asSent)) expect([key, item[key]]).toEqual([key, asSent[key]]);
}

async function answering(path: string, body: Fields, method?: string): Promise<void> {
	sandbox.control.clearFaults();
	sandbox.control.failRoute({ path, method, mode: 'answer', status: method === 'GET' ? 200 : 201, contentType: 'application/json', body: JSON.stringify(body) });
}

describe('fields the nodes add never replace a field of the same name the Service sent', () => {
	test('Policy Run > Create: statement_location, statement_note', async () => {
		await fc.assert(
			fc.asyncProperty(colliding(['statement_location', 'statement_note']), async (extra) => {
				const sent = { id: 'run-1', ke: 'KE-1010', status: 'running', statement_id: 'st-1', ...extra };
				await answering('/v1/reader/policy-runs', sent, 'POST');
				const result = await runReader(sandbox, { resource: 'policyRun', operation: 'create', ke: 'KE-1010', options: {} });
				expect(result.error(READER)).toBeUndefined();
				const item = result.output(READER)[0].json;
				keptAsSent(item, sent);
				expect(nodeValue(item, sent, 'statement_location')).toBe(STATEMENT_LOCATION);
				expect(nodeValue(item, sent, 'statement_note')).toBe(STATEMENT_NOTE);
			}),
			runs(25),
		);
	}, 120_000);

	test('Webhook > Create Endpoint: id, secret (when the Service names them otherwise), secret_notice', async () => {
		await fc.assert(
			// The Service names its id `uuid` and its secret `signing_secret`, and may send `id` and `secret` fields too.
			fc.asyncProperty(colliding(['id', 'secret', 'secret_notice']), fc.boolean(), async (extra, otherNames) => {
				const genuine = otherNames ? { uuid: 'wh-1', signing_secret: 'whsec_c2VjcmV0' } : { id: 'wh-1', secret: 'whsec_c2VjcmV0' };
				const sent = { ...genuine, url: 'https://hooks.buyer.example/added', ...extra };
				await answering('/v1/reader/webhooks', sent, 'POST');
				const result = await runReader(sandbox, { resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/added' });
				if (result.error(READER) !== undefined) {
					// A secret the Service sent as something unreadable, and no other, or two texts that may each be it: refused, never guessed.
					const two = otherNames && typeof extra.secret === 'string';
					expect(result.error(READER)?.message).toBe(two ? "The Service's answer has 2 fields that may be the signing secret (secret, signing_secret)" : 'The Service created the endpoint but returned no signing secret');
					return;
				}
				const item = result.output(READER)[0].json;
				keptAsSent(item, sent);
				expect(nodeValue(item, sent, 'secret_notice')).toBe(SECRET_NOTICE);
				// The secret the node read is in the item, under `secret` or in the holder.
				const secret = nodeValue(item, sent, 'secret');
				expect(typeof secret === 'string' || typeof secret === 'number').toBe(true);
			}),
			runs(25),
		);
	}, 120_000);

	test('Record > Verify with Check Copy: copy_matches, copy_reason, copy_sha256', async () => {
		const fetched = await runReader(sandbox, { resource: 'record', operation: 'get', ke: 'KE-1002' } as INodeParameters);
		const served = sandbox.control.record('KE-1002');
		const genuine = verificationBody(sandbox.dialect.answers.verification, { ...served, valid: true, signedAt: '2026-01-01T00:00:00Z' });
		const copy = fetched.output(READER)[0];
		await fc.assert(
			fc.asyncProperty(colliding(['copy_matches', 'copy_reason', 'copy_sha256']), async (extra) => {
				const sent = { ...genuine, ...extra };
				await answering(`/v1/public/reports/${served.ks}/verify`, sent, 'GET');
				const result = await runReader(sandbox, { resource: 'record', operation: 'verify', ks: served.ks, checkCopy: true }, { inputItems: [copy] });
				expect(result.error(READER)).toBeUndefined();
				const item = result.output(READER)[0].json;
				keptAsSent(item, sent);
				expect(nodeValue(item, sent, 'copy_matches')).toBe(true);
				expect(nodeValue(item, sent, 'copy_sha256')).toBe(served.sha256);
				expect(nodeValue(item, sent, 'copy_reason')).toEqual(expect.stringContaining('byte for byte'));
			}),
			runs(25),
		);
	}, 120_000);

	test('Record > Verify of a tampered copy: copy_matches false is the node\'s, whatever copy_matches the Service sent', async () => {
		const served = sandbox.control.record('KE-1003');
		const genuine = verificationBody(sandbox.dialect.answers.verification, { ...served, valid: true, signedAt: '2026-01-01T00:00:00Z' });
		const tampered = fileItem(Buffer.concat([served.bytes, Buffer.from(' ')]), `${served.ks}.json`, 'application/json');
		await fc.assert(
			fc.asyncProperty(colliding(['copy_matches']), async (extra) => {
				const sent = { ...genuine, ...extra };
				await answering(`/v1/public/reports/${served.ks}/verify`, sent, 'GET');
				const result = await runReader(sandbox, { resource: 'record', operation: 'verify', ks: served.ks, checkCopy: true }, { inputItems: [tampered] });
				const item = result.output(READER)[0].json;
				keptAsSent(item, sent);
				expect(nodeValue(item, sent, 'copy_matches')).toBe(false);
			}),
			runs(10),
		);
	}, 120_000);
});
