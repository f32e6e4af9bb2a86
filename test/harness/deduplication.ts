import { createHash } from 'node:crypto';
import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

/**
 * n8n's deduplication store as its CLI implements it (packages/cli/src/deduplication), held in memory
 * instead of its database: one record per workflow and node holding md5 hashes of the items, read and
 * rewritten without a lock (a pause between read and write models the database round trips).
 * It outlives a harness "restart", as the database does.
 */
class MemoryDeduplicator implements IDataDeduplicator {
	readonly records = new Map<string, { mode: string; data: string[] }>();

	private key(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
		if (scope === 'node' && !context.node) throw new Error("No node information has been provided and so cannot use scope 'node'");
		return `${context.workflow.id}\u0000${scope === 'node' ? `n:${context.node!.id}` : ''}`;
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error('Only mode "entries" is modelled');
		const key = this.key(scope, context);
		const stored = this.records.get(key);
		const data = stored ? [...stored.data] : [];
		await new Promise((resolve) => setImmediate(resolve));
		const seen = new Set(data);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		items.forEach((item) => {
			const hash = createHash('md5').update(item.toString()).digest('base64');
			if (seen.has(hash)) output.processed.push(item);
			else {
				output.new.push(item);
				data.push(hash);
				seen.add(hash);
			}
		});
		if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
		this.records.set(key, { mode: options.mode, data });
		return output;
	}

	async removeProcessed(): Promise<void> {}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		this.records.delete(this.key(scope, context));
	}

	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<number> {
		return this.records.get(this.key(scope, context))?.data.length ?? 0;
	}
}

export const deduplicationStore = new MemoryDeduplicator();

let initialised = false;

/** Gives n8n-core's deduplication helpers their store, once per test process (as n8n's start does). */
export async function initDeduplication(): Promise<void> {
	if (initialised) return;
	initialised = true;
	await DataDeduplicationService.init(deduplicationStore);
}
