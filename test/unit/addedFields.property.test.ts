import fc from 'fast-check';

import { addLater, triggerAdded, withAdded, withTriggerFields } from '../../nodes/shared/addedFields';
import { runs } from '../property/fc';
import { companyOf } from '../../nodes/ServiceTrigger/companyDetails/companyDetails';

/**
 * Fields the nodes add never replace a field the Service sent (docs/service-choices.md, "Fields the
 * nodes add"), whatever names and values the Service used, `_reader` and its longer forms included.
 */

const names = fc.constantFrom('ke', 'company', 'alert_id_bytes', 'row', 'ok', 'copy_matches', 'secret', '_reader', '__reader', '___reader', 'reader', 'x_reader', 'other');
const json = fc.jsonValue({ maxDepth: 2 });
const record = fc.dictionary(names, json, { maxKeys: 8 });
const ours = fc.dictionary(fc.constantFrom('ke', 'company', 'row', 'ok', 'copy_matches', 'secret'), json, { minKeys: 1, maxKeys: 4 });

/** Where the node's value of `name` ended up: its own name, or the `_…_reader` object with the most underscores. */
function nodeValue(item: Record<string, unknown>, sent: Record<string, unknown>, name: string): unknown {
	if (!Object.prototype.hasOwnProperty.call(sent, name)) return item[name];
	const holders = Object.keys(item).filter((key) => /^_+reader$/.test(key) && !Object.prototype.hasOwnProperty.call(sent, key));
	const holder = holders.length === 1 ? (item[holders[0]] as Record<string, unknown>) : undefined;
	return holder !== undefined && Object.prototype.hasOwnProperty.call(holder, name) ? holder[name] : sent[name];
}

describe('withAdded', () => {
	test('keeps every field the Service sent, as sent, and every added value is found', () => {
		fc.assert(
			fc.property(record, ours, (sent, added) => {
				const snapshot = JSON.stringify(sent);
				const item = withAdded(sent, added);
				for (const key of Object.keys(sent)) expect(item[key]).toEqual(sent[key]);
				// At most one key more than the sent and added names: the holder, a name the Service did not use.
				const extra = Object.keys(item).filter((key) => !(key in sent) && !(key in added));
				expect(extra.length).toBeLessThanOrEqual(1);
				for (const [name, value] of Object.entries(added)) expect(nodeValue(item, sent, name)).toEqual(value);
				expect(JSON.stringify(sent)).toBe(snapshot);
			}),
			runs(500),
		);
	});

	test('the trigger: the body kept as sent, each added field read back as the node set it, never a field of the body', () => {
		fc.assert(
			fc.property(record, json, json, fc.option(fc.string(), { nil: undefined }), (sent, ke, company, bytes) => {
				const added = { ke, ...(bytes === undefined ? {} : { alert_id_bytes: bytes }) };
				const item = addLater(withTriggerFields(sent, added, ['ke', 'company', 'alert_id_bytes']), 'company', company);
				for (const key of Object.keys(sent)) expect(item[key]).toEqual(sent[key]);
				expect(triggerAdded(item, 'ke')).toEqual(ke);
				expect(triggerAdded(item, 'company')).toEqual(company);
				expect(triggerAdded(item, 'alert_id_bytes')).toBe(bytes);
			}),
			runs(500),
		);
	});
});

describe('Add Company Details: the portfolio row of a company', () => {
	test('every column kept as the Service wrote it, also one named ke, name or shared; the node\'s ke, name and shared beside them or under _reader', () => {
		const columns = fc.dictionary(fc.constantFrom('ke', 'company_ke', 'name', 'company_name', 'shared', 'tier', '_reader', '__reader'), fc.string({ maxLength: 8 }), { minKeys: 1, maxKeys: 8 });
		fc.assert(
			fc.property(columns, fc.string({ minLength: 1, maxLength: 8 }), (row, ke) => {
				const company = companyOf(ke, row);
				for (const [column, value] of Object.entries(row)) expect(company[column]).toBe(value);
				expect(nodeValue(company, row, 'ke')).toBe(ke);
				expect(nodeValue(company, row, 'shared')).toBe(true);
			}),
			runs(500),
		);
	});
});

test('a Service field named __proto__ is added as a plain own field, never as the item\'s prototype', () => {
	const attributes = JSON.parse('{"__proto__": {"polluted": true}, "name": "Acme"}') as Record<string, unknown>;
	const item = withAdded({ id: '1' }, attributes);
	expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
	expect((item as { polluted?: unknown }).polluted).toBeUndefined();
	expect(Object.getOwnPropertyDescriptor(item, '__proto__')?.value).toEqual({ polluted: true });
	expect(JSON.parse(JSON.stringify(item))).toEqual(JSON.parse('{"id": "1", "__proto__": {"polluted": true}, "name": "Acme"}'));
});
