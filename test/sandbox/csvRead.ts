/** One parsed CSV record with the 1-based line it starts on. */
export interface CsvRecord {
	line: number;
	values: string[];
}

export interface CsvParseResult {
	records: CsvRecord[];
	/** Set when a quoted value is never closed; the records before it are kept. */
	unclosedQuoteLine?: number;
}

/** Minimal RFC 4180 reader: quoted values may hold commas, quotes ("") and line breaks. Blank lines are skipped. */
export function parseCsv(text: string): CsvParseResult {
	const records: CsvRecord[] = [];
	let values: string[] = [];
	let value = '';
	let quoted = false;
	let line = 1;
	let recordLine = 1;
	let started = false;
	const endRecord = () => {
		if (started) {
			values.push(value);
			const blank = values.length === 1 && values[0].trim() === '';
			if (!blank) records.push({ line: recordLine, values });
		}
		values = [];
		value = '';
		started = false;
	};
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (!started) {
			started = true;
			recordLine = line;
		}
		if (quoted) {
			if (ch === '"' && text[i + 1] === '"') {
				value += '"';
				i++;
			} else if (ch === '"') {
				quoted = false;
			} else {
				if (ch === '\n') line++;
				value += ch;
			}
		} else if (ch === '"' && value === '') {
			quoted = true;
		} else if (ch === ',') {
			values.push(value);
			value = '';
		} else if (ch === '\n' || ch === '\r') {
			if (ch === '\r' && text[i + 1] === '\n') i++;
			endRecord();
			line++;
		} else {
			value += ch;
		}
	}
	if (quoted) return { records, unclosedQuoteLine: recordLine };
	endRecord();
	return { records };
}
