/**
 * Ignore Redeliveries, the remembering side (delivery.ts checks).
 *
 * The alert_id is written into static data by the execution the delivery started, not by
 * webhook(): n8n (2.40) does not save static data that webhook() changed when n8n answers the
 * delivery, and the answer must come from n8n, after it has stored the execution, so that a 2xx
 * never stands for a delivery that was lost. The execution's static data is saved when it ends;
 * `answeredAlerts` covers the time until then within this process.
 */
import type { IExecuteFunctions, INode, INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import { AnsweredAlerts } from '../shared/answeredAlerts';
import { hasSeenAlert, liveAlerts, rememberAlert, storedAlerts } from '../shared/redeliveryMemory';

/** One per n8n process: every Service Trigger in every workflow shares it, keyed by `triggerKey`. */
export const answeredAlerts = new AnsweredAlerts();

/** A trigger in a workflow, with test deliveries (mode "manual") kept apart from production ones. */
export function triggerKey(context: { getWorkflow(): { id?: string }; getNode(): INode; getMode(): WorkflowExecuteMode }): string {
	const mode = context.getMode() === 'manual' ? 'test' : 'production';
	return `${context.getWorkflow().id ?? ''}\u0000${context.getNode().id}\u0000${mode}`;
}

/**
 * The trigger's step in the execution: passes the delivered item on and remembers its alert_id.
 * An alert_id already remembered here (its first copy's execution ended while this copy was being
 * received) is logged and not passed on, so the workflow acts on an alert once.
 */
export async function rememberPassedOn(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const passedOn = (item: INodeExecutionData, index: number): INodeExecutionData => ({ ...item, pairedItem: { item: index } });
	if (!(this.getNodeParameter('ignoreRedeliveries', 0, true) as boolean)) return [items.map(passedOn)];

	const staticData = this.getWorkflowStaticData('node');
	const now = Date.now();
	let seen = liveAlerts(staticData.seenAlerts, now);
	const output: INodeExecutionData[] = [];
	items.forEach((item, index) => {
		const alertId = item.json.alert_id;
		if (typeof alertId === 'string' && hasSeenAlert(seen, alertId)) {
			this.logger.info(
				`Service Trigger: alert ${alertId} (${String(item.json.event_type)}) was already passed on by another execution; this copy goes no further.`,
			);
			return;
		}
		if (typeof alertId === 'string') seen = rememberAlert(seen, alertId, now);
		output.push(passedOn(item, index));
	});
	// Assigned, not changed in place: n8n notices (and saves) static data changes through assignment.
	staticData.seenAlerts = storedAlerts(seen);
	return [output];
}
