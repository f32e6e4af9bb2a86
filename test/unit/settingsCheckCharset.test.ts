import { checkSettings, type Finding, type Probe } from '../../nodes/shared/settingsCheck';
import { fakeService } from './settingsCheckFakes';

// Check Settings reports the CSV charset and Excel's sep= line it read (issue 44 item 3): a Service
// writing UTF-16LE with a byte order mark under `charset=utf-8` (the mark wins) and `sep=;` first.

const BASE = 'https://svc.example';
const topic = (findings: Finding[], name: string) => findings.find((entry) => entry.topic === name)!;

/** The fake Service, its CSV pages re-encoded as `encode` says. */
function reencoded(encode: (text: string) => { body: Uint8Array; type: string }): Probe {
	const inner = fakeService({ rows: 7, pageSize: 3, delimiter: ';' });
	return async (request) => {
		const answer = await inner(request);
		if (!(answer.headers.get('content-type') ?? '').startsWith('text/csv')) return answer;
		const { body, type } = encode(new TextDecoder().decode(answer.body));
		return { ...answer, body, headers: new Map([...answer.headers, ['content-type', type]]) };
	};
}

test('UTF-16LE with a byte order mark under charset=utf-8, and a sep= line: read as UTF-16LE, the mark winning, sep= said', async () => {
	const service = reencoded((text) => ({ body: Buffer.from(`\uFEFFsep=;\r\n${text}`, 'utf16le'), type: 'text/csv; charset=utf-8' }));
	const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
	expect(topic(findings, 'CSV Delimiter')).toMatchObject({ verdict: 'ok', found: 'semicolon' });
	expect(topic(findings, 'CSV Header Row on Later Pages')).toMatchObject({ verdict: 'ok', found: 'every' });
	const charset = topic(findings, 'CSV Byte Order Mark and Line Ends');
	expect(charset).toMatchObject({ verdict: 'info', found: 'BOM, CRLF, utf-16le, sep=;' });
	expect(charset.evidence).toContain('It is read as utf-16le: its Content-Type names utf-8 (the byte order mark wins).');
	expect(charset.evidence).toContain('Its first line is Excel\'s "sep=;", read as the delimiter.');
});

test('windows-1252 named in Content-Type: reported by its name', async () => {
	const service = reencoded((text) => ({ body: Buffer.from(text, 'latin1'), type: 'text/csv; charset=ISO-8859-1' }));
	const charset = topic(await checkSettings(service, { baseUrl: BASE, advanced: {} }), 'CSV Byte Order Mark and Line Ends');
	expect(charset).toMatchObject({ verdict: 'info', found: 'no BOM, CRLF, windows-1252' });
});

test('an unknown charset: the delimiter cannot be told, the words name the charset', async () => {
	const service = reencoded((text) => ({ body: Buffer.from(text), type: 'text/csv; charset=x-unknown' }));
	const delimiter = topic(await checkSettings(service, { baseUrl: BASE, advanced: {} }), 'CSV Delimiter');
	expect(delimiter.verdict).toBe('unknown');
	expect(delimiter.evidence).toContain('names the charset "x-unknown", which the nodes cannot decode');
});
