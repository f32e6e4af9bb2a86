import { randomBytes } from 'node:crypto';

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

export class AlertLog {
	private readonly alerts = new Map<string, Alert>();

	constructor(
		private readonly state: SandboxState,
		private readonly deliveries: DeliveryManager,
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
		const alertId = options.alertId ?? `al_${randomBytes(12).toString('hex')}`;
		const body = eventBody({
			event_type: type,
			alert_id: alertId,
			ids,
			severity: options.severity ?? definition.severity,
			occurred_at: options.occurredAt ?? this.state.nowIso(),
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
