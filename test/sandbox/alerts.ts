import { randomBytes, randomInt } from 'node:crypto';

import { defaultEventValues, type EventValues } from './dialect';

import type { DeliveryKind, DeliveryManager, DeliveryPlan } from './deliveries';
import { eventBody, eventType } from './events';
import type { SandboxState } from './state';
import type { ReaderKey, Severity } from './types';

/** One event occurrence (one alert_id), delivered to each of the reader's endpoints. */
export interface Alert {
	alertId: string;
	eventType: string;
	reader: ReaderKey;
	/** The exact JSON body, as signed. */
	body: string;
	/** Deliveries started for this alert, one per endpoint (more after a redelivery). */
	deliveryIds: string[];
}

export interface EmitOptions {
	/** Reader organisation the event is for; default `reader`. */
	reader?: ReaderKey;
	severity?: Severity;
	occurredAt?: string;
	/** Deliver to this endpoint only, instead of every endpoint of the reader. */
	endpointId?: string;
	/** The alert_id, instead of a random one (a hostile Service's: e.g. one quoting the access token). */
	alertId?: string;
}

export interface ProbeOptions extends EmitOptions {
	/** For stale deliveries: how old the signature timestamp is, in seconds (default 600). */
	ageSeconds?: number;
	/** For tampered deliveries: change the body after signing (default) or corrupt the signature. */
	mode?: 'body' | 'signature';
}

/** Numeric severities, as a Service that numbers them might send them (the spec shows no values). */
const SEVERITY_NUMBERS: Record<Severity, number> = { high: 3, medium: 2, low: 1, info: 0 };

export class AlertLog {
	private readonly alerts = new Map<string, Alert>();

	constructor(
		private readonly state: SandboxState,
		private readonly deliveries: DeliveryManager,
		private readonly values: EventValues = defaultEventValues,
	) {}

	emit(type: string, ids: Record<string, string> = {}, options: EmitOptions = {}): Alert {
		return this.create(type, ids, options, 'event');
	}

	stale(type: string, ids: Record<string, string>, options: ProbeOptions = {}): Alert {
		return this.create(type, ids, options, 'stale', { ageSeconds: options.ageSeconds ?? 600 });
	}

	tampered(type: string, ids: Record<string, string>, options: ProbeOptions = {}): Alert {
		return this.create(type, ids, options, 'tampered', { tamper: options.mode ?? 'body' });
	}

	/** Sends the same body (same alert_id) again to the same endpoints, freshly signed. */
	redeliver(alertId: string): Alert {
		const alert = this.alerts.get(alertId);
		if (!alert) throw new Error(`No alert ${alertId} was emitted by this sandbox.`);
		const endpointIds = new Set(
			this.deliveries.list({ alertId }).map((d) => d.endpointId),
		);
		const endpoints = this.state.readers[alert.reader].endpoints.filter((e) => endpointIds.has(e.id));
		for (const endpoint of endpoints) {
			const delivery = this.deliveries.start({
				alertId, eventType: alert.eventType, reader: alert.reader, endpoint, kind: 'redelivery', body: alert.body,
			});
			alert.deliveryIds.push(delivery.id);
		}
		return { ...alert, deliveryIds: [...alert.deliveryIds] };
	}

	get(alertId: string): Alert | undefined {
		const alert = this.alerts.get(alertId);
		return alert && { ...alert, deliveryIds: [...alert.deliveryIds] };
	}

	private create(
		type: string,
		ids: Record<string, string>,
		options: EmitOptions,
		kind: DeliveryKind,
		probe: Pick<DeliveryPlan, 'ageSeconds' | 'tamper'> = {},
	): Alert {
		const definition = eventType(type);
		if (type !== 'reader_invitation_status' && !ids.organisation) {
			throw new Error(`Event ${type} needs ids.organisation (a KE).`);
		}
		if (type === 'reader_invitation_status' && !ids.invitation) {
			throw new Error('Event reader_invitation_status needs ids.invitation (an invitation id).');
		}
		const reader = options.reader ?? 'reader';
		const endpoints = this.state.readers[reader].endpoints.filter(
			(e) => options.endpointId === undefined || e.id === options.endpointId,
		);
		if (options.endpointId !== undefined && endpoints.length === 0) {
			throw new Error(`Reader ${reader} has no webhook endpoint ${options.endpointId}.`);
		}
		const values = this.values;
		// An integer alert_id is remembered here by its JSON text, as the trigger remembers it.
		const numbered = options.alertId === undefined && values.alertId === 'integer';
		const alertId = options.alertId ?? (numbered ? String(randomInt(1_000_000_000_000, 2 ** 47)) : `al_${randomBytes(12).toString('hex')}`);
		const severity = options.severity ?? definition.severity;
		const occurredAt = options.occurredAt ?? this.state.nowIso();
		const body = eventBody({
			event_type: type,
			alert_id: numbered ? Number(alertId) : alertId,
			ids,
			severity: values.severity === 'number' ? SEVERITY_NUMBERS[severity] : severity,
			occurred_at: values.occurredAt === 'unix' ? Math.floor(Date.parse(occurredAt) / 1000) : occurredAt,
			// Fields the spec does not list: a Service may send more than identifiers.
			...(values.extraFields === 'none' ? {} : { schema_version: 2, score: 0.75, tags: ['sandbox', null], links: { self: `/v1/reader/alerts/${alertId}` } }),
			...(values.extraFields === 'colliding' ? { ke: `theirs-${alertId}`, company: { name: 'as the Service words it' } } : {}),
		});
		const alert: Alert = { alertId, eventType: type, reader, body, deliveryIds: [] };
		this.alerts.set(alertId, alert);
		for (const endpoint of endpoints) {
			const delivery = this.deliveries.start({ alertId, eventType: type, reader, endpoint, kind, body, ...probe });
			alert.deliveryIds.push(delivery.id);
		}
		return { ...alert, deliveryIds: [...alert.deliveryIds] };
	}
}
