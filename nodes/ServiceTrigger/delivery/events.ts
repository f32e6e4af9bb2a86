import { withTriggerFields } from '../../shared/addedFields';
import { findId, findText, isRecord } from '../../shared/answerShape';
import { alertIdBytesWhenNotText } from './alertIdBytes';
import { parseExactJson } from '../../shared/exactJson';

/**
 * Webhook events: the named event types of spec section 6, which of them cannot be silenced, and
 * the item a delivery becomes. Pure: no n8n types.
 */

export interface EventTypeInfo {
	eventType: string;
	description: string;
}

/** Spec section 6, "Named event types". The catalogue route may list more (e.g. other ledger_* members). */
export const NAMED_EVENT_TYPES: readonly EventTypeInfo[] = [
	{ eventType: 'finding_new', description: 'A new finding: a new version of the record to review' },
	{
		eventType: 'ledger_high',
		description:
			'Always starts the workflow. Status change on the company register (struck off, in liquidation, licence suspended)',
	},
	{ eventType: 'ledger_medium', description: 'A lesser status change on the company register' },
	{ eventType: 'questionnaire_answered', description: 'A questionnaire was answered' },
	{
		eventType: 'reader_decision_due',
		description: "The reader's own review is due under its rules",
	},
	{
		eventType: 'reader_invitation_status',
		description: 'An invitation became opened, accepted, declined, bounced or expired',
	},
	{ eventType: 'reader_tier_changed', description: "A company's tier under the reader's rules changed" },
	{ eventType: 'report_superseded', description: 'A new version of a record is available for review' },
	{ eventType: 'share_granted', description: 'A company shares with the reader' },
	{ eventType: 'share_revoked', description: 'A share ended' },
];

/** Spec section 6: "A reader cannot silence these." */
export const UNSILENCEABLE_EVENT_TYPES: readonly string[] = ['ledger_high'];

/** Whether an event starts the workflow. No selection means every event. */
export function shouldStartWorkflow(eventType: string, selected: readonly string[]): boolean {
	if (selected.length === 0) return true;
	return UNSILENCEABLE_EVENT_TYPES.includes(eventType) || selected.includes(eventType);
}

/** Fields the trigger adds beside the body (`ke`, `alert_id_bytes`, `company` with Add Company Details): never instead of the Service's. */
export const TRIGGER_ADDED_FIELDS = ['ke', 'company', 'alert_id_bytes'] as const;

/**
 * A verified delivery: the body exactly as sent (every field, every JSON type) with `ke` added beside
 * it (`ids.organisation`, the company's KE, or null), and what the trigger itself reads off it.
 */
export interface ServiceEvent {
	item: Record<string, unknown>;
	/** `event_type` as text, for the Events filter and log lines. */
	eventType: string;
	/** The alert's identity for redeliveries: its bytes when decoding loses some (`b:`), else `alertIdKey`'s text (`s:`). */
	alertKey: string;
	/** The alert_id as text, for log lines. */
	alertId: string;
}

export type EventReading = ServiceEvent | { problem: string };

/**
 * Reads a verified body. It is passed on whole, as the Service sent it (docs/service-choices.md: Event
 * body); only `event_type` and `alert_id` must be there, of any type but null.
 */
export function readServiceEvent(rawBody: Buffer): EventReading {
	let body: unknown;
	try {
		body = parseExactJson(rawBody.toString('utf8'));
	} catch {
		return { problem: 'the body is not JSON' };
	}
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		return { problem: 'the body is not a JSON object' };
	}
	const record = body as Record<string, unknown>;
	const eventType = scalarText(record.event_type);
	const alertId = alertIdKey(record.alert_id);
	if (eventType === undefined) return { problem: 'the body has no event_type' };
	if (alertId === undefined) return { problem: 'the body has no alert_id' };
	const ids = record.ids;
	const organisation = isRecord(ids) ? scalarText(ids.organisation) : undefined;
	// A text alert_id whose bytes decoding loses (alertIdBytes.ts) is matched on those bytes.
	const bytes = alertIdBytesWhenNotText(rawBody);
	return {
		item: withTriggerFields(record, { ke: organisation ?? null, ...withBytes(bytes) }, TRIGGER_ADDED_FIELDS),
		eventType,
		alertKey: bytes === undefined ? `s:${alertId}` : `b:${bytes}`,
		alertId,
	};
}

/** A string, number or boolean as text; undefined for anything else and for empty text. */
function scalarText(value: unknown): string | undefined {
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

/**
 * The key an alert_id is remembered under: a string as it is (as stored before), any other value but
 * null as its JSON text (`123`, `1.5`, `true`, `{"n":1}`), so no alert is refused for its type.
 */
export function alertIdKey(value: unknown): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	return typeof value === 'string' ? value : JSON.stringify(value);
}

const withBytes = (bytes: string | undefined) => (bytes === undefined ? {} : { alert_id_bytes: bytes });

/** Where a catalogue entry names its event type (docs/service-choices.md: Catalogue). */
const EVENT_TYPE_NAMES = ['event_type', 'type', 'name', 'event', 'id'];

/**
 * Event types for the Events parameter: the catalogue's entries (`{event_type, description}`, or
 * the same under other conventional names, or just the names), joined with the named ones so a
 * short catalogue cannot hide them, sorted by name.
 */
export function eventTypeChoices(catalogue: readonly unknown[] | undefined): EventTypeInfo[] {
	const byType = new Map<string, EventTypeInfo>();
	for (const entry of catalogue ?? []) {
		// An entry may also be just the event type's name.
		const record = typeof entry === 'string' ? { event_type: entry } : entry;
		if (!isRecord(record)) continue;
		// A JSON:API resource's `type` names the kind of resource ("event-types"), not the event: the event
		// is in its attributes or its id, else every entry would read as one event type.
		const attributes = isRecord(record.attributes) && typeof record.type === 'string' ? record.attributes : undefined;
		const eventType = attributes
			? (findId(attributes, ['event_type', 'event']) ?? findId(record, ['event_type', 'event', 'id']) ?? findId(attributes, ['name']))
			: findId(record, EVENT_TYPE_NAMES);
		if (!eventType) continue;
		byType.set(eventType, {
			eventType,
			description: findText(attributes ?? record, ['description', 'summary', 'title', 'meaning'], EVENT_TYPE_NAMES) ?? '',
		});
	}
	for (const named of NAMED_EVENT_TYPES) {
		const listed = byType.get(named.eventType);
		if (!listed) byType.set(named.eventType, named);
		else if (listed.description === '') listed.description = named.description;
	}
	for (const type of UNSILENCEABLE_EVENT_TYPES) {
		const info = byType.get(type);
		// First, so the dropdown's two visible lines still say it when the rest is cut off.
		if (info && !/always starts/i.test(info.description)) {
			info.description = `Always starts the workflow. ${info.description}`;
		}
	}
	return [...byType.values()].sort((a, b) => a.eventType.localeCompare(b.eventType));
}
