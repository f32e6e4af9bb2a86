/**
 * Fields the nodes add to what the Service sent (docs/service-choices.md: "Fields the nodes add").
 * Pure: no n8n types.
 */

type Fields = Record<string, unknown>;

const own = (record: Fields, name: string) => Object.prototype.hasOwnProperty.call(record, name);
/** `record[name] = value` as an own field: a `__proto__` from the Service is a field, never the prototype. */
const put = (record: Fields, name: string, value: unknown) => Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });

/** How many underscores lead `reader` in `name` (`_reader` 1, `__reader` 2), 0 for any other name. */
function holderDepth(name: string): number {
	if (!name.endsWith('reader')) return 0;
	const lead = name.slice(0, -'reader'.length);
	return lead !== '' && [...lead].every((char) => char === '_') ? lead.length : 0;
}

const deepest = (record: Fields) => Math.max(0, ...Object.keys(record).map(holderDepth));

/**
 * Where added fields go when the Service sent a field of the same name: `_reader`, or one underscore
 * more than the longest `_…_reader` the Service sent, so it is never a name the Service used.
 */
export function addedFieldsKey(sent: Fields): string {
	return `${'_'.repeat(deepest(sent) + 1)}reader`;
}

/**
 * `sent` whole, in its own order and JSON types, with `added` beside it: each added field under its
 * own name when the Service sent no field of that name (or sent the same value), else in an object
 * under `addedFieldsKey(sent)`.
 */
export function withAdded(sent: Fields, added: Fields): Fields {
	const result: Fields = { ...sent };
	const held: Fields = {};
	for (const [name, value] of Object.entries(added)) {
		// The same value under the same name replaces nothing (the import's `row` as the Service numbered it).
		if (!own(sent, name)) put(result, name, value);
		else if (!sameJson(sent[name], value)) put(held, name, value);
	}
	if (Object.keys(held).length > 0) put(result, addedFieldsKey(sent), held);
	return result;
}

/**
 * The trigger's item, which later steps read back (`triggerAdded`) and add to (`addLater`): `added`
 * beside the body, or, when the body has a field named like one of `reserved` or a `_…_reader` field,
 * all of `added` in one object under `addedFieldsKey(sent)`, so what is the node's is never in doubt.
 */
export function withTriggerFields(sent: Fields, added: Fields, reserved: readonly string[]): Fields {
	const clash = reserved.some((name) => own(sent, name)) || deepest(sent) > 0;
	return clash ? { ...sent, [addedFieldsKey(sent)]: { ...added } } : { ...sent, ...added };
}

/** The holder `withTriggerFields` made: the `_…_reader` field with the most underscores, if any. */
function triggerHolder(item: Fields): Fields | undefined {
	const depth = deepest(item);
	if (depth === 0) return undefined;
	const holder = item[`${'_'.repeat(depth)}reader`];
	return holder !== null && typeof holder === 'object' && !Array.isArray(holder) ? (holder as Fields) : {};
}

/** A field `withTriggerFields` (or `addLater`) added to `item`, wherever it went; undefined when not added. */
export function triggerAdded(item: Fields, name: string): unknown {
	const holder = triggerHolder(item);
	if (holder === undefined) return own(item, name) ? item[name] : undefined;
	return own(holder, name) ? holder[name] : undefined;
}

/** One more field on an item made by `withTriggerFields`: beside the body's fields, or in its holder. */
export function addLater(item: Fields, name: string, value: unknown): Fields {
	const depth = deepest(item);
	if (depth === 0) return { ...item, [name]: value };
	const key = `${'_'.repeat(depth)}reader`;
	return { ...item, [key]: { ...triggerHolder(item), [name]: value } };
}

function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
	try {
		return JSON.stringify(a) === JSON.stringify(b);
	} catch {
		return false;
	}
}
