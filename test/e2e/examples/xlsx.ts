import { createRequire } from 'node:module';
import { join } from 'node:path';
import { n8nInstall } from '../n8n-install';

interface SheetJs {
	read(data: Buffer, options: { type: 'buffer' }): { SheetNames: string[]; Sheets: Record<string, unknown> };
	utils: { sheet_to_json<T>(sheet: unknown, options?: { defval?: unknown; raw?: boolean }): T[] };
}

/**
 * Reads an .xlsx file back into rows keyed by its header row. It uses the SheetJS build installed
 * with n8n (what Convert to File writes with), so the project needs no spreadsheet dependency of
 * its own; reading is the same parsing any spreadsheet application does.
 */
export async function readXlsx(bytes: Buffer): Promise<{ sheets: string[]; rows: Array<Record<string, string>> }> {
	const install = await n8nInstall();
	const requireFromN8n = createRequire(join(install.packageDir, '..', 'n8n-nodes-base', 'package.json'));
	// n8n 2.x: @e965/xlsx (SheetJS republished on the registry); n8n 1.x: xlsx.
	const xlsx = (() => {
		try {
			return requireFromN8n('@e965/xlsx') as SheetJs;
		} catch {
			return requireFromN8n('xlsx') as SheetJs;
		}
	})();
	const book = xlsx.read(bytes, { type: 'buffer' });
	const first = book.Sheets[book.SheetNames[0]];
	return { sheets: book.SheetNames, rows: xlsx.utils.sheet_to_json<Record<string, string>>(first, { defval: '', raw: false }) };
}
