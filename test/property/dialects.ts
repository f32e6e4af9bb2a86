import fc from 'fast-check';

import type { AnswerShapes } from '../sandbox/answerShapes';
import type { CsvFormat } from '../sandbox/csv';
import { altDialect, defaultDialect, type Dialect } from '../sandbox/dialect';

/**
 * Sandbox dialects drawn at random for the property tests: each choice where the spec says "not
 * shown" independent of the others (`default` and `alt` are two fixed points among them).
 */

export const csvFormat: fc.Arbitrary<CsvFormat> = fc.record({
	delimiter: fc.constantFrom<CsvFormat['delimiter']>(',', ';', '\t', '|'),
	headerEveryPage: fc.boolean(),
	lineEnd: fc.constantFrom<CsvFormat['lineEnd']>('\r\n', '\n'),
	bom: fc.boolean(),
	quoteAll: fc.boolean(),
});

const answerShapes: fc.Arbitrary<AnswerShapes> = fc.record({
	catalogue: fc.constantFrom<AnswerShapes['catalogue']>('list', 'keyed'),
	endpointNesting: fc.integer({ min: 0, max: 3 }),
	importAs: fc.constantFrom<AnswerShapes['importAs']>('json', 'csv'),
	passkeyStatus: fc.constantFrom<AnswerShapes['passkeyStatus']>(401, 403),
});

export const dialect: fc.Arbitrary<Dialect> = fc
	.record({
		base: fc.constantFrom(defaultDialect, altDialect),
		csv: csvFormat,
		answers: answerShapes,
		reversedColumns: fc.boolean(),
		timestampUnit: fc.constantFrom<Dialect['timestampUnit']>('seconds', 'milliseconds'),
		signatureSeparator: fc.constantFrom(',', ';', ', ', ' '),
	})
	.map(({ base, csv, answers, reversedColumns, timestampUnit, signatureSeparator }) => ({
		...base,
		csv,
		answers,
		csvColumns: (columns: readonly string[]) => (reversedColumns ? [...columns].reverse() : columns),
		timestampUnit,
		signatureSeparator,
	}));

/** The setting an error names, as the credential stores it, for a Service writing `csv`. */
export function settingNamed(message: string, csv: CsvFormat): Record<string, string> {
	const names: Record<CsvFormat['delimiter'], string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
	if (/CSV Delimiter/.test(message)) return { csvDelimiter: names[csv.delimiter] };
	if (/CSV Header Row/.test(message)) return { csvHeaderRepeat: csv.headerEveryPage ? 'every' : 'first' };
	throw new Error(`The error names no setting: ${message}`);
}
