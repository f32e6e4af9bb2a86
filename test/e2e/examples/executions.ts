import type { Execution } from '../n8n';

/** The alert_id of the event that started each execution (the trigger node's first output item). */
export function alertIdsOf(executions: Execution[], triggerNode: string): string[] {
	return executions.map((execution) => {
		const item = execution.data?.resultData.runData[triggerNode]?.[0]?.data?.main?.[0]?.[0]?.json;
		return String(item?.alert_id ?? '');
	});
}

/** How many executions each alert started. */
export function countByAlert(executions: Execution[], triggerNode: string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const id of alertIdsOf(executions, triggerNode)) counts[id] = (counts[id] ?? 0) + 1;
	return counts;
}

/** The JSON items a node output in one execution (empty when it ran with no output or did not run). */
export function executionItems(execution: Execution, nodeName: string): Array<Record<string, unknown>> {
	const runs = execution.data?.resultData.runData[nodeName];
	return (runs?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}
