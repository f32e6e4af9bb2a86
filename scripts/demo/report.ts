import type { Execution } from '../../test/e2e/n8n';

export interface WorkflowRow {
	workflow: string;
	executions: Execution[];
}

/** `success x2, error x1`, or `none`. */
function statusSummary(executions: Execution[]): string {
	if (executions.length === 0) return 'none';
	const counts = new Map<string, number>();
	for (const execution of executions) counts.set(execution.status, (counts.get(execution.status) ?? 0) + 1);
	return [...counts].map(([status, count]) => `${status} x${count}`).join(', ');
}

/** A plain-text table: workflow, number of executions, their statuses. */
export function executionTable(rows: WorkflowRow[]): string {
	const lines = [
		['Workflow', 'Executions', 'Status'],
		...rows.map((row) => [row.workflow, String(row.executions.length), statusSummary(row.executions)]),
	];
	const widths = lines[0].map((_, column) => Math.max(...lines.map((line) => line[column].length)));
	const format = (line: string[]) => line.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd();
	return [format(lines[0]), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.slice(1).map(format)].join('\n');
}
