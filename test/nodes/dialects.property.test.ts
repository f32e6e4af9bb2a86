import fc from 'fast-check';
import { parse } from 'csv-parse/sync';

import { READER, readerWorkflow, runWorkflow, trustCa } from '../harness';
import { runs } from '../property/fc';
import type { CsvFormat } from '../sandbox/csv';
import { altDialect, defaultDialect, type Dialect } from '../sandbox/dialect';
import { startSandbox, type Sandbox } from '../sandbox';
import { getMany, joinCsvPages, portfolioCsvRows, readBinary, serviceCredentials, servicePages } from './reader/exportHelpers';

/**
 * The real Service Reader against sandboxes whose choices where the spec says "not shown" are drawn
 * at random (each independent of the others; `default` and `alt` are two fixed points among them):
 * every row equals the sandbox's data, in items and as one file, or the item fails with an error
 * naming the setting, after which setting it succeeds. Replay: FC_SEED (and FC_PATH) from the
 * failure message; FC_RUNS for a longer run.
 */

const csvFormat: fc.Arbitrary<CsvFormat> = fc.record({
	delimiter: fc.constantFrom<CsvFormat['delimiter']>(',', ';', '\t', '|'),
	headerEveryPage: fc.boolean(),
	lineEnd: fc.constantFrom<CsvFormat['lineEnd']>('\r\n', '\n'),
	bom: fc.boolean(),
	quoteAll: fc.boolean(),
});

const dialect: fc.Arbitrary<Dialect> = fc
	.record({
		base: fc.constantFrom(defaultDialect, altDialect),
		csv: csvFormat,
		reversedColumns: fc.boolean(),
		timestampUnit: fc.constantFrom<Dialect['timestampUnit']>('seconds', 'milliseconds'),
		signatureSeparator: fc.constantFrom(',', ';', ', ', ' '),
	})
	.map(({ base, csv, reversedColumns, timestampUnit, signatureSeparator }) => ({
		...base,
		csv,
		csvColumns: (columns: readonly string[]) => (reversedColumns ? [...columns].reverse() : columns),
		timestampUnit,
		signatureSeparator,
	}));

/** The setting an error names, as the credential stores it, for a Service writing `csv`. */
function settingNamed(message: string, csv: CsvFormat): Record<string, string> {
	const names: Record<CsvFormat['delimiter'], string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
	if (/CSV Delimiter/.test(message)) return { csvDelimiter: names[csv.delimiter] };
	if (/CSV Header Row/.test(message)) return { csvHeaderRepeat: csv.headerEveryPage ? 'every' : 'first' };
	throw new Error(`The error names no setting: ${message}`);
}

async function portfolio(sandbox: Sandbox, output: 'items' | 'file', advanced: Record<string, string>) {
	const credentials = serviceCredentials(sandbox, { pageSize: 3 });
	Object.assign(credentials.serviceApi, { advancedSettings: true, ...advanced });
	const parameters = output === 'file' ? { returnAll: true, output: 'file' } : { returnAll: true };
	return await runWorkflow(readerWorkflow(getMany('portfolio', parameters)), { credentials });
}

/** Runs the export; when it fails, the error must name a setting, and with it set the export must succeed. */
async function exportWithNamedSettings(sandbox: Sandbox, output: 'items' | 'file') {
	const first = await portfolio(sandbox, output, {});
	if (first.run.status === 'success') return first;
	const error = first.error(READER);
	const message = `${error?.message ?? ''} ${error?.description ?? ''}`;
	const second = await portfolio(sandbox, output, settingNamed(message, sandbox.dialect.csv));
	expect(second.run.status).toBe('success');
	return second;
}

describe('the Service Reader on generated Service dialects', () => {
	test('portfolio rows equal the sandbox data in items and as one file, in every dialect', async () => {
		await fc.assert(
			fc.asyncProperty(dialect, async (drawn) => {
				const sandbox = await startSandbox({ dialect: drawn });
				try {
					trustCa(sandbox.ca);
					const expected = portfolioCsvRows(sandbox);

					const items = await exportWithNamedSettings(sandbox, 'items');
					expect(items.output(READER).map((item) => item.json)).toEqual(expected);

					const file = await exportWithNamedSettings(sandbox, 'file');
					const bytes = (await readBinary(file.output(READER)[0].binary?.data)).toString('utf8');
					const pages = await servicePages(sandbox, `/v1/reader/exports/portfolio?format=csv&${sandbox.dialect.pageSizeParameter}=3`);
					expect(bytes).toBe(joinCsvPages(pages, drawn.csv));
					expect(parse(bytes, { columns: true, bom: true, delimiter: drawn.csv.delimiter })).toEqual(expected);
				} finally {
					await sandbox.close();
				}
			}),
			runs(50),
		);
	}, 300_000);
});
