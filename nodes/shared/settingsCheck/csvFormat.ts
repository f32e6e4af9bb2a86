/**
 * Finding 5, CSV: the delimiter read off the portfolio's header row (csv.ts `detectDelimiter`), whether
 * the second page starts with the header row again, the byte order mark and line ends. With the
 * credential on Detect these are `ok` (what was found is shown); a set value that differs is `change`.
 */
import { answerShown, readCsv, type CsvRead } from './answers';
import { cannotTell, finding, setting } from './current';
import type { Current } from './current';
import type { Pages } from './pageSize';
import type { Finding } from './types';
import type { CsvDelimiter } from '../csv';

const DELIMITER_VALUES: ReadonlyMap<CsvDelimiter, string> = new Map([[',', 'comma'], [';', 'semicolon'], ['\t', 'tab'], ['|', 'pipe']]);

export function checkCsv(current: Current, pages: Pages): Finding[] {
	const delimiterNow = current.csvDelimiter;
	const repeatNow = current.csvHeaderRepeat;
	const delimiterSettings = [setting('csvDelimiter', delimiterNow)];
	const repeatSettings = [setting('csvHeaderRepeat', repeatNow)];
	const page = pages.first ?? pages.unasked;
	if (pages.problem !== undefined || page === undefined) {
		const why = pages.problem ?? 'the portfolio export was not read';
		return [cannotTell('CSV Delimiter', why, delimiterSettings, delimiterNow), cannotTell('CSV Header Row on Later Pages', why, repeatSettings, repeatNow)];
	}
	const read = readCsv(page);
	if ('problem' in read) {
		return [
			finding('CSV Delimiter', 'unknown', `The portfolio's first page (${answerShown(page)}): ${read.problem}`, { settings: delimiterSettings, current: delimiterNow }),
			cannotTell('CSV Header Row on Later Pages', 'the first page could not be read', repeatSettings, repeatNow),
		];
	}
	const found = DELIMITER_VALUES.get(read.delimiter)!;
	const header = read.records[0] ?? [];
	const headerShown = header.join(read.delimiter === '\t' ? '<tab>' : read.delimiter);
	const delimiterEvidence = `The portfolio's header row "${headerShown.length > 100 ? `${headerShown.slice(0, 100)}…` : headerShown}" is split by ${found}s.`;
	const out: Finding[] = [];
	if (delimiterNow === 'auto' || delimiterNow === found) {
		out.push(finding('CSV Delimiter', 'ok', `${delimiterEvidence}${delimiterNow === 'auto' ? ' Detect finds it.' : ''}`, { settings: delimiterSettings, current: delimiterNow, found }));
	} else {
		out.push(finding('CSV Delimiter', 'change', delimiterEvidence, { settings: [setting('csvDelimiter', found)], current: delimiterNow, found }));
	}
	out.push(headerRepeat(read, pages, repeatNow));
	out.push(
		finding('CSV Byte Order Mark and Line Ends', 'info', `The portfolio's first page ${read.bom ? 'starts with a byte order mark' : 'has no byte order mark'} and ends its lines with ${read.lineEnd}; the nodes read either way.${charsetWords(read)}`, {
			found: `${read.bom ? 'BOM' : 'no BOM'}, ${read.lineEnd}, ${read.charset}${read.sep ? `, sep=${read.sep === '\t' ? '<tab>' : read.sep}` : ''}`,
		}),
	);
	return out;
}

/** The charset read and an Excel sep= line, in words (csvText.ts): a byte order mark wins over the Content-Type's charset. */
function charsetWords(read: CsvRead): string {
	const named = read.namedCharset === undefined ? 'its Content-Type names no charset' : `its Content-Type names ${read.namedCharset}`;
	const contradicts = read.bom && read.namedCharset !== undefined && read.namedCharset !== read.charset ? ' (the byte order mark wins)' : '';
	const sep = read.sep ? ` Its first line is Excel's "sep=${read.sep === '\t' ? '<tab>' : read.sep}", read as the delimiter.` : '';
	return ` It is read as ${read.charset}: ${named}${contradicts}.${sep}`;
}

function headerRepeat(first: CsvRead, pages: Pages, now: string): Finding {
	const settings = [setting('csvHeaderRepeat', now)];
	if (pages.second === undefined) return cannotTell('CSV Header Row on Later Pages', 'no second page of the portfolio was fetched (see Cursor Parameter)', settings, now);
	const second = readCsv(pages.second, first.delimiter);
	if ('problem' in second) return finding('CSV Header Row on Later Pages', 'unknown', `The second page does not read as CSV: ${second.problem}`, { settings, current: now });
	const header = first.records[0] ?? [];
	const opening = second.records[0] ?? [];
	const repeats = opening.length === header.length && opening.every((cell, i) => cell === header[i]);
	const found = repeats ? 'every' : 'first';
	const evidence = repeats ? 'The second page of the portfolio starts with the header row again.' : 'The second page of the portfolio starts with a data row: the header row comes on the first page only.';
	if (now === 'auto' || now === found) return finding('CSV Header Row on Later Pages', 'ok', `${evidence}${now === 'auto' ? ' Detect reads it.' : ''}`, { settings, current: now, found });
	return finding('CSV Header Row on Later Pages', 'change', evidence, { settings: [setting('csvHeaderRepeat', found)], current: now, found });
}
