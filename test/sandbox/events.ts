import type { Severity } from './types';

export interface EventType {
	event_type: string;
	description: string;
	severity: Severity;
	/** Which ids the body carries besides organisation (KE). */
	extraIds: readonly string[];
}

/** The ten event types named in spec section 6, then the rest of the ledger_* family as the sandbox defines it. */
export const eventCatalogue: readonly EventType[] = [
	{ event_type: 'share_granted', severity: 'info', extraIds: [], description: 'A company shares its record with the reader. ids.organisation is the KE.' },
	{ event_type: 'share_revoked', severity: 'medium', extraIds: [], description: 'A share ended or was revoked. Reader routes for that KE answer 404 from now on; delete or mark the copies you hold.' },
	{ event_type: 'report_superseded', severity: 'medium', extraIds: ['report'], description: 'A new version of a record is available for review. ids.report is the new KS.' },
	{ event_type: 'finding_new', severity: 'medium', extraIds: ['report'], description: 'A new finding: a new version of the record to review. ids.report is the KS.' },
	{ event_type: 'ledger_high', severity: 'high', extraIds: [], description: 'Status change on the company register (struck off, in liquidation, licence suspended). A reader cannot silence these.' },
	{ event_type: 'ledger_medium', severity: 'medium', extraIds: [], description: 'A lesser status change on the company register (for example a director change or late accounts).' },
	{ event_type: 'ledger_low', severity: 'low', extraIds: [], description: 'A minor register change with no effect on status (for example a new registered office address).' },
	{ event_type: 'ledger_info', severity: 'info', extraIds: [], description: 'A routine register filing was received (for example a confirmation statement); no change of status.' },
	{ event_type: 'reader_tier_changed', severity: 'medium', extraIds: [], description: "A company's tier under the reader's own rules changed." },
	{ event_type: 'reader_decision_due', severity: 'medium', extraIds: [], description: "The reader's own review of a company is due under its rules." },
	{ event_type: 'reader_invitation_status', severity: 'info', extraIds: ['invitation'], description: 'An invitation became opened, accepted, declined, bounced or expired. ids.invitation is the invitation id; ids.organisation is present once the company is known.' },
	{ event_type: 'questionnaire_answered', severity: 'info', extraIds: ['questionnaire'], description: 'A questionnaire was answered. ids.questionnaire identifies it.' },
];

export function eventType(name: string): EventType {
	const found = eventCatalogue.find((e) => e.event_type === name);
	if (!found) {
		throw new Error(`Unknown event type "${name}": use one of ${eventCatalogue.map((e) => e.event_type).join(', ')}.`);
	}
	return found;
}

export interface EventBody {
	event_type: string;
	/** Text, or a number in a dialect that numbers alerts. */
	alert_id: string | number;
	ids: Record<string, string>;
	severity: Severity | number;
	occurred_at: string | number;
	/** Fields beyond the spec's five, in a dialect that sends more. */
	[extra: string]: unknown;
}

/** The body in the exact field order of spec section 6, then any extra fields. */
export function eventBody(body: EventBody): string {
	const { event_type, alert_id, ids, severity, occurred_at, ...extra } = body;
	return JSON.stringify({ event_type, alert_id, ids, severity, occurred_at, ...extra });
}

export function sampleIds(type: EventType): Record<string, string> {
	const samples: Record<string, string> = { report: 'KS-1001-v2', invitation: 'INV-0001', questionnaire: 'QN-0001' };
	const ids: Record<string, string> = { organisation: 'KE-1001' };
	for (const id of type.extraIds) ids[id] = samples[id];
	return ids;
}

export function catalogueResponse(): { data: Array<{ event_type: string; description: string; sample: EventBody }> } {
	return {
		data: eventCatalogue.map((type) => ({
			event_type: type.event_type,
			description: type.description,
			sample: {
				event_type: type.event_type,
				alert_id: 'al_sample0000000000000000',
				ids: sampleIds(type),
				severity: type.severity,
				occurred_at: '2026-01-01T00:00:00.000Z',
			},
		})),
	};
}
