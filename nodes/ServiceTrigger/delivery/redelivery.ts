/**
 * Ignore Redeliveries: an alert_id reaches the workflow once, and never at the cost of losing it.
 *
 * Two memories, neither in static data (an execution saves the static data it loaded when it ends,
 * which would put back an endpoint that a re-activation had replaced meanwhile):
 * - this process: copies in flight (being answered) and alerts answered 2xx, so a copy arriving
 *   meanwhile starts nothing;
 * - n8n's deduplication store (its database, shared by every process), written by the trigger's
 *   step in the execution, so a copy arriving after a restart, or at another process, goes no
 *   further than that step.
 */
import { createHash } from 'node:crypto';

import type { IExecuteFunctions, INode, INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import { BoundedMemory } from '../boundedMemory';
import { deduplicationWrites } from './deduplicationWrites';
import { alertIdKey } from './events';
import { triggerAdded } from '../../shared/addedFields';

/** 24 h retry window plus an hour for clock skew and the last attempt's own delay. */
export const MEMORY_LIMITS = { maxAlerts: 1000, maxAgeMs: 25 * 60 * 60 * 1000, maxTriggers: 1000, storedAlerts: 10_000 };

/**
 * The longest alert key kept as sent, in UTF-16 code units (2 bytes each at most): a longer one (the
 * Service's alert_id has no length bound) is kept as its SHA-256, 45 characters, so one trigger's
 * 1,000 alerts hold at most 1,000 × 128 bytes of keys (docs/token-and-limits.md).
 */
export const LONGEST_KEPT_ALERT_KEY = 64;

/** The key an alert is remembered under in this process: as sent up to the bound, else `h:` and its SHA-256. */
export function rememberedAlertKey(alertKey: string): string {
	if (alertKey.length <= LONGEST_KEPT_ALERT_KEY) return alertKey;
	// Over the UTF-16 code units: one-to-one for any text (UTF-8 would merge lone surrogates), so two keys, two digests.
	return `h:${createHash('sha256').update(alertKey, 'utf16le').digest('base64url')}`;
}

/** Bytes an alert key holds at most: 2 a UTF-16 code unit (a short key never hashed can hold non-Latin-1 text). */
const keyBytes = (_value: unknown, key: string) => key.length * 2;

/** A trigger in a workflow, with test deliveries (mode "manual") kept apart from production ones. */
export function triggerKey(context: { getWorkflow(): { id?: string }; getNode(): INode; getMode(): WorkflowExecuteMode }): string {
	return `${context.getWorkflow().id ?? ''}\u0000${context.getNode().id}\u0000${deliveryKind(context.getMode())}`;
}

function deliveryKind(mode: WorkflowExecuteMode): 'test' | 'production' {
	return mode === 'manual' ? 'test' : 'production';
}

export type CopyState = 'new' | 'in-flight' | 'answered';

/**
 * What this process knows of each trigger's alerts: the oldest answered alert and the least
 * recently answered trigger go first, in constant time. Pure: no n8n types, no clock.
 */
export class ProcessMemory {
	private readonly answered: BoundedMemory<BoundedMemory<true>>;
	private readonly inFlight = new Set<string>();

	constructor(private readonly limits = MEMORY_LIMITS) {
		// At most 1000 triggers, each kept 25 h from its last alert answered 2xx.
		this.answered = new BoundedMemory<BoundedMemory<true>>(limits.maxTriggers, limits.maxAgeMs);
	}

	/** Claims a copy: 'new' marks it in flight until `settle`; otherwise it must start nothing. */
	claim(trigger: string, alertKey: string, nowMs: number): CopyState {
		const alertId = rememberedAlertKey(alertKey);
		if (this.answered.get(trigger, nowMs)?.get(alertId, nowMs) !== undefined) return 'answered';
		const key = `${trigger}\u0000${alertId}`;
		if (this.inFlight.has(key)) return 'in-flight';
		this.inFlight.add(key);
		return 'new';
	}

	/** Ends a claim: remembered when the Service was told 2xx, released otherwise (its retry must start). */
	settle(trigger: string, alertKey: string, answered2xx: boolean, nowMs: number): void {
		const alertId = rememberedAlertKey(alertKey);
		if (!this.inFlight.delete(`${trigger}\u0000${alertId}`) || !answered2xx) return;
		// At most 1000 alerts per trigger, each kept 25 h from its 2xx answer (the Service's retry window),
		// each key at most LONGEST_KEPT_ALERT_KEY code units.
		const alerts =
			this.answered.get(trigger, nowMs) ??
			new BoundedMemory<true>(this.limits.maxAlerts, this.limits.maxAgeMs, { maxBytes: this.limits.maxAlerts * LONGEST_KEPT_ALERT_KEY * 2, sizeOf: keyBytes });
		alerts.set(alertId, true, nowMs);
		this.answered.set(trigger, alerts, nowMs);
	}

	/** Bytes of alert keys held for `trigger` (2 a UTF-16 code unit): at most maxAlerts × 128. */
	heldKeyBytes(trigger: string, nowMs: number): number {
		return this.answered.get(trigger, nowMs)?.heldBytes ?? 0;
	}

	/** As a new process starts. */
	forgetAll(): void {
		this.answered.clear();
		this.inFlight.clear();
	}
}

/**
 * The key in n8n's deduplication store: `<kind>:<id>` as stored before issue 31 (any other JSON type
 * by its JSON text, events.ts `alertIdKey`), `<kind>-bytes:<base64>` for ids decoding loses.
 */
function deduplicationKey(kind: string, alertId: unknown, alertIdBytes: unknown): string | undefined {
	if (typeof alertIdBytes === 'string') return `${kind}-bytes:${alertIdBytes}`;
	const key = alertIdKey(alertId);
	return key === undefined ? undefined : `${kind}:${key}`;
}

/** One per n8n process, shared by every Service Trigger in every workflow. */
export const processMemory = new ProcessMemory();

/**
 * The trigger's step in the execution: passes each delivered item on unless n8n's deduplication
 * store has its alert_id already (a copy that started the workflow before). If the store cannot be
 * used, the item is passed on: a second run is better than a lost alert.
 */
export async function passOnOnce(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const passedOn = (item: INodeExecutionData, index: number): INodeExecutionData => ({ ...item, pairedItem: { item: index } });
	const remember = this.helpers.checkProcessedAndRecord;
	// A retry is the user running a failed execution again, never the Service's redelivery.
	const retry = this.getMode() === 'retry';
	if (!(this.getNodeParameter('ignoreRedeliveries', 0, true) as boolean) || typeof remember !== 'function' || retry) {
		return [items.map(passedOn)];
	}
	const kind = deliveryKind(this.getMode());
	const keys = items.map((item) => deduplicationKey(kind, item.json.alert_id, triggerAdded(item.json, 'alert_id_bytes')));
	const wanted = keys.filter((key): key is string => key !== undefined);
	let processed = new Set<string>();
	try {
		processed = await deduplicationWrites.record(triggerKey(this), wanted, async (batch) =>
			await remember.call(this.helpers, batch, 'node', { mode: 'entries', maxEntries: MEMORY_LIMITS.storedAlerts }),
		);
	} catch (error) {
		this.logger.warn(
			`Service Trigger: n8n's deduplication store could not be used (${(error as Error).message}); the alerts are passed on without the redelivery check.`,
		);
	}
	const output: INodeExecutionData[] = [];
	items.forEach((item, index) => {
		const key = keys[index];
		if (key !== undefined && processed.has(key)) {
			this.logger.info(
				`Service Trigger: alert ${String(item.json.alert_id)} (${String(item.json.event_type)}) was already passed on by an earlier execution; this copy goes no further.`,
			);
			return;
		}
		output.push(passedOn(item, index));
	});
	return [output];
}
