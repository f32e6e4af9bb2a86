/**
 * The credential's fields with every `change` of a check applied, as settings/advancedSettings.ts
 * stores them: plain fields set, Request Names rows merged by concept (`{ name: [{ concept, serviceName }] }`),
 * the Advanced Settings switch turned on when an advanced field changed, `baseUrl` when the Base URL did.
 */
import { isRecord } from '../answerShape';
import type { Finding } from './types';

type Row = { concept: string; serviceName: string };

export function applyFindings(advanced: Readonly<Record<string, unknown>>, findings: readonly Finding[]): Record<string, unknown> {
	const out: Record<string, unknown> = { ...advanced };
	const stored = isRecord(advanced.requestNames) && Array.isArray(advanced.requestNames.name) ? advanced.requestNames.name : [];
	const rows: Row[] = stored.filter((row): row is Row => isRecord(row) && typeof row.concept === 'string' && typeof row.serviceName === 'string').map((row) => ({ concept: row.concept, serviceName: row.serviceName }));
	let namesChanged = false;
	let advancedChanged = false;
	for (const entry of findings) {
		if (entry.verdict !== 'change') continue;
		for (const change of entry.settings) {
			if (change.field === 'requestNames' && change.concept !== undefined) {
				const at = rows.findIndex((row) => row.concept === change.concept);
				const row = { concept: change.concept, serviceName: String(change.value) };
				if (at >= 0) rows[at] = row;
				else rows.push(row);
				namesChanged = true;
				advancedChanged = true;
			} else {
				out[change.field] = change.value;
				if (change.field !== 'baseUrl') advancedChanged = true;
			}
		}
	}
	if (namesChanged) out.requestNames = { name: rows };
	if (advancedChanged) out.advancedSettings = true;
	return out;
}
