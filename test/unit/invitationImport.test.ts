import {
	buildImportCsv,
	csvField,
	ImportAnswerError,
	mappedCell,
	matchImportAnswer,
	readImportFile,
} from '../../nodes/ServiceReader/actions/invitation/import/invitationImport';

const HEADER = 'company_name,registration_number,work_email,reader_reference';

describe('csvField', () => {
	it.each([
		['plain', 'plain'],
		['', ''],
		['a,b', '"a,b"'],
		['say "hi"', '"say ""hi"""'],
		['two\nlines', '"two\nlines"'],
		['cr\r', '"cr\r"'],
		[' lead', '" lead"'],
		['trail ', '"trail "'],
		['\tTabbed', '"\tTabbed"'],
		['=SUM(A1)', '=SUM(A1)'],
		['Été ✓', 'Été ✓'],
	])('%j -> %j', (value, field) => {
		expect(csvField(value)).toBe(field);
	});
});

describe('buildImportCsv', () => {
	it('writes the header and one CRLF-terminated line per row, in column order', () => {
		expect(
			buildImportCsv([
				{ reader_reference: 'R1', work_email: 'a@a.example', registration_number: 'GB1', company_name: 'A, Ltd' },
				{ company_name: 'B', registration_number: 'GB2', work_email: 'b@b.example', reader_reference: '' },
			]),
		).toBe(`${HEADER}\r\n"A, Ltd",GB1,a@a.example,R1\r\nB,GB2,b@b.example,\r\n`);
	});

	it('round-trips through the file reader', () => {
		const rows = [{ company_name: 'Smith, "J"\nLLP', registration_number: ' GB 1 ', work_email: 'x@y.example', reader_reference: '=1+1' }];
		expect(readImportFile(Buffer.from(buildImportCsv(rows)))).toEqual({ count: 1, rows, unreadableFrom: undefined });
	});
});

describe('mappedCell', () => {
	it.each([
		['company_name', 'Acme', 'Acme'],
		['company_name', '', ''],
		['registration_number', 12345, '12345'],
		['reader_reference', undefined, ''],
		['reader_reference', null, ''],
	] as const)('%s: %j gives %j', (column, value, text) => {
		expect(mappedCell(column, value)).toEqual({ ok: true, value: text });
	});

	it.each([
		['company_name', undefined, 'The Company Name mapping gives no value: point it at the item\'s field that holds the company name (e.g. {{ $json.company_name }}), or enter an empty text on purpose.'],
		['work_email', null, 'The Work Email mapping gives no value: point it at the item\'s field that holds the work email (e.g. {{ $json.work_email }}), or enter an empty text on purpose.'],
		['registration_number', ['a'], 'The Registration Number mapping gives a list, not text: map it to a single text field.'],
		['reader_reference', { a: 1 }, 'The Reader Reference mapping gives an object, not text: map it to a single text field.'],
		['company_name', true, 'The Company Name mapping gives boolean, not text: map it to a single text field.'],
	] as const)('%s: %j is refused', (column, value, problem) => {
		expect(mappedCell(column, value)).toEqual({ ok: false, problem });
	});
});

describe('readImportFile', () => {
	it('counts data rows: BOM, CRLF, quoted line breaks, blank lines and ragged rows', () => {
		const file = `\uFEFF${HEADER}\r\nA,GB1,a@a.example,R1\r\n\r\n"B\r\nLtd",GB2,b@b.example\r\n   \r\nC,GB3,c@c.example,R3,extra\r\n`;
		expect(readImportFile(Buffer.from(file))).toEqual({
			count: 3,
			rows: [
				{ company_name: 'A', registration_number: 'GB1', work_email: 'a@a.example', reader_reference: 'R1' },
				{ company_name: 'B\r\nLtd', registration_number: 'GB2', work_email: 'b@b.example' },
				{ company_name: 'C', registration_number: 'GB3', work_email: 'c@c.example', reader_reference: 'R3' },
			],
			unreadableFrom: undefined,
		});
	});

	it('counts rows of a file in another encoding', () => {
		const latin1 = Buffer.from(`${HEADER}\nSoci\xe9t\xe9,FR1,a@a.example,\n`, 'latin1');
		expect(readImportFile(latin1)).toMatchObject({ count: 1, rows: [{ company_name: 'Soci\uFFFDt\uFFFD' }] });
	});

	it('keeps a quote inside an unquoted value as text', () => {
		expect(readImportFile(Buffer.from(`${HEADER}\nO"Brien Ltd,GB1,a@a.example,\n`)).rows[0].company_name).toBe('O"Brien Ltd');
	});

	it('counts the row with an unclosed quote and says the count is a lower bound', () => {
		const file = `${HEADER}\nA,GB1,a@a.example,R1\n"Open,GB2,b@b.example,R2\nC,GB3,c@c.example,R3\n`;
		const read = readImportFile(Buffer.from(file));
		expect(read.count).toBe(2);
		expect(read.unreadableFrom).toMatch(/Quote Not Closed/);
	});

	it('has no rows for an empty file or a header alone', () => {
		expect(readImportFile(Buffer.from(''))).toEqual({ count: 0, rows: [], unreadableFrom: undefined });
		expect(readImportFile(Buffer.from(`${HEADER}\r\n`))).toEqual({ count: 0, rows: [], unreadableFrom: undefined });
	});
});

describe('matchImportAnswer', () => {
	const row = (n: number, ok = true, extra: Record<string, unknown> = {}) => ({ row: n, ok, check: ok ? 'Sent.' : 'Refused.', ...extra });

	it('returns the rows in order with what the Service said', () => {
		const answer = {
			rows: [row(2, false, { data: { company_name: 'B' } }), row(1, true, { invitation_id: 'INV-1', data: { company_name: 'A' } })],
			accepted: 1,
			refused: 1,
		};
		expect(matchImportAnswer(answer, 2)).toEqual([
			{ row: 1, ok: true, check: 'Sent.', invitation_id: 'INV-1', data: { company_name: 'A' }, said: answer.rows[1] },
			{ row: 2, ok: false, check: 'Refused.', data: { company_name: 'B' }, said: answer.rows[0] },
		]);
	});

	it('fails, quoting the Service, when rows sent got no answer', () => {
		const answer = { rows: [row(1), row(2, false), row(5)] };
		let error: ImportAnswerError | undefined;
		try {
			matchImportAnswer(answer, 6);
		} catch (caught) {
			error = caught as ImportAnswerError;
		}
		expect(error).toBeInstanceOf(ImportAnswerError);
		expect(error?.message).toBe(
			'The Service answered 3 of the 6 rows sent: rows 3-4, 6 got no answer. Check the file and import the unanswered rows again. '
				+ 'The Service said: row 1: accepted, "Sent."; row 2: refused, "Refused."; row 5: accepted, "Sent.".',
		);
		expect(error?.firstUnanswered).toBe(3);
	});

	it('fails when the Service answers rows that were not sent', () => {
		expect(() => matchImportAnswer({ rows: [row(1), row(2)] }, 1)).toThrow(
			'The Service answered row 2, but only 1 row was sent. Check the file and import the unanswered rows again. '
				+ 'The Service said: row 1: accepted, "Sent."; row 2: accepted, "Sent.".',
		);
	});

	it('with a lower-bound count, accepts more rows but never fewer', () => {
		expect(matchImportAnswer({ rows: [row(1), row(2), row(3)] }, 2, true)).toHaveLength(3);
		expect(() => matchImportAnswer({ rows: [row(1)] }, 2, true)).toThrow('The Service answered 1 of the 2 rows sent: row 2 got no answer.');
	});

	it('with a lower-bound count, a made-up row number far beyond the rows is reported, never counted up to', () => {
		const before = process.memoryUsage().heapUsed;
		expect(() => matchImportAnswer({ rows: [row(1), row(2), row(20_000_000)] }, 2, true)).toThrow(
			'The Service answered row 20000000, but only 2 rows were sent.',
		);
		// Counting up to row 20,000,000 took 368 MiB; the bound is the rows sent plus the rows answered.
		expect(process.memoryUsage().heapUsed - before).toBeLessThan(32 * 1024 * 1024);
	});

	it('reads an answer sent as CSV (text/csv) the same way, its text booleans included', () => {
		const csv = 'row,ok,check,invitation_id\r\n1,true,Sent.,inv_1\r\n2,false,Not a valid email.,\r\n';
		expect(matchImportAnswer(csv, 2).map(({ row, ok, check, invitation_id }) => ({ row, ok, check, invitation_id }))).toEqual([
			{ row: 1, ok: true, check: 'Sent.', invitation_id: 'inv_1' },
			{ row: 2, ok: false, check: 'Not a valid email.', invitation_id: undefined },
		]);
	});

	it('reads an answer keyed by row number, each row keeping its number', () => {
		const body = { results: { '1': { status: 'accepted', reason: 'Sent.' }, '2': { status: 'rejected', reason: 'Duplicate.' } } };
		expect(matchImportAnswer(body, 2).map(({ row, ok, check }) => ({ row, ok, check }))).toEqual([
			{ row: 1, ok: true, check: 'Sent.' },
			{ row: 2, ok: false, check: 'Duplicate.' },
		]);
	});

	it.each([
		[{}, 'The Service\'s answer to the import has no list of rows, so the result of each row is unknown.'],
		[null, 'The Service\'s answer to the import has no list of rows, so the result of each row is unknown.'],
		[{ rows: [{ row: 'first', ok: true }] }, 'The Service answered a row the node cannot read: {"row":"first","ok":true}.'],
		[{ rows: [{ row: 1 }] }, 'The Service answered a row the node cannot read: {"row":1}.'],
		[{ rows: [{ row: 0, ok: true }] }, 'The Service answered a row the node cannot read: {"row":0,"ok":true}.'],
		[{ rows: [row(1), row(1)] }, 'The Service answered row 1 twice.'],
	])('refuses an answer it cannot read: %j', (body, message) => {
		expect(() => matchImportAnswer(body, 1)).toThrow(message);
	});
});

describe('matchImportAnswer on a very large answer', () => {
	it('matches 300,000 answered rows without overflowing the stack', () => {
		const rows = Array.from({ length: 300_000 }, (_, i) => ({ row: i + 1, ok: i % 2 === 0, check: i % 2 === 0 ? 'Sent.' : 'Refused.' }));
		const matched = matchImportAnswer({ rows }, 250_000, true);
		expect(matched).toHaveLength(300_000);
		expect(matched[299_999]).toMatchObject({ row: 300_000, ok: false, check: 'Refused.' });
	});
});
