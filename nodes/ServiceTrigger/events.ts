import { findId, findText, isRecord } from '../shared/answerShape';
import { alertIdBytesWhenNotText } from './alertIdBytes';

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

/** The item a verified delivery becomes: the body's identifiers only, plus `ke` for convenience. */
export interface ServiceEventItem {
	[key: string]: string | Record<string, string> | null | undefined;
	event_type: string;
	alert_id: string;
	ids: Record<string, string>;
	severity: string | null;
	occurred_at: string | null;
	/** `ids.organisation`, the company's KE; null when the event names no company. */
	ke: string | null;
	/** Base64 of the alert_id's bytes as sent, only when they do not survive decoding (alertIdBytes.ts): redeliveries are matched on it. */
	alert_id_bytes?: string;
}

export type EventReading = { item: ServiceEventItem } | { problem: string };

/**
 * Reads a verified body. Only the documented fields are taken, so anything else the sender might
 * add (names, findings, personal data) never reaches the workflow.
 */
export function readServiceEvent(rawBody: Buffer): EventReading {
	let body: unknown;
	try {
		body = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return { problem: 'the body is not JSON' };
	}
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		return { problem: 'the body is not a JSON object' };
	}
	const record = body as Record<string, unknown>;
	const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
	const eventType = text(record.event_type);
	const alertId = text(record.alert_id);
	if (!eventType) return { problem: 'the body has no event_type' };
	if (!alertId) return { problem: 'the body has no alert_id' };
	// fromEntries defines own properties: an id named `__proto__` keeps its value (an assignment would not).
	const ids: Record<string, string> =
		record.ids !== null && typeof record.ids === 'object' && !Array.isArray(record.ids)
			? Object.fromEntries(
					Object.entries(record.ids as Record<string, unknown>)
						.filter(([, value]) => typeof value === 'string' || typeof value === 'number')
						.map(([key, value]) => [key, String(value)]),
				)
			: {};
	return {
		item: {
			event_type: eventType,
			alert_id: alertId,
			ids,
			severity: text(record.severity) ?? null,
			occurred_at: text(record.occurred_at) ?? null,
			ke: ids.organisation ?? null,
			...withBytes(alertIdBytesWhenNotText(rawBody)),
		},
	};
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
		const eventType = findId(record, EVENT_TYPE_NAMES);
		if (!eventType) continue;
		byType.set(eventType, {
			eventType,
			description: findText(record, ['description', 'summary', 'title', 'meaning'], EVENT_TYPE_NAMES) ?? '',
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
