/**
 * Item 2, the limit: the portfolio pages fetched over loopback HTTPS with plain Node (one
 * keep-alive connection, the CA trusted) and parsed by csv-parse alone into row objects that are
 * counted and dropped. Two ways, since neither is faster everywhere: `stream` pipes each response
 * into csv-parse's stream parser; `page` reads a whole page, then parses it with csv-parse/sync. Runs as its own process, started by limit.ts with plain `node` (Node 24
 * strips the types), so its peak RSS is that of this work and nothing else.
 *
 *   node bench/limitClient.ts '{"baseUrl":"https://127.0.0.1:1234","token":"...","caPath":"ca.pem","parse":"stream","maxPages":2000}'
 *
 * Prints one JSON line: rows, pages, bytes, ms, maxRssKiB.
 */
import { parse } from 'csv-parse';
import { parse as parsePage } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:https';

interface LimitJob {
	baseUrl: string;
	token: string;
	caPath: string;
	parse: 'stream' | 'page';
	/**
	 * false: a new agent (so a new TLS connection) for every page, as n8n's request helpers do;
	 * shows what keep-alive is worth. Default true.
	 */
	keepAlive?: boolean;
	/** Bound on the paging loop: a Service that never stops sending cursors cannot keep this running. */
	maxPages: number;
}

interface PageCount {
	rows: number;
	bytes: number;
	nextCursor: string | undefined;
}

const job = JSON.parse(process.argv[2] ?? '{}') as LimitJob;
const ca = readFileSync(job.caPath, 'utf8');
const sharedAgent = new Agent({ keepAlive: true, maxSockets: 1, ca });
const agentForPage = () => (job.keepAlive === false ? new Agent({ ca }) : sharedAgent);

function fetchPage(cursor: string | undefined): Promise<PageCount> {
	const url = new URL('/v1/reader/exports/portfolio', job.baseUrl);
	url.searchParams.set('format', 'csv');
	if (cursor !== undefined) url.searchParams.set('cursor', cursor);
	return new Promise((resolve, reject) => {
		const request = get(url, { agent: agentForPage(), headers: { authorization: `Bearer ${job.token}`, accept: 'text/csv' } }, (response) => {
			if (response.statusCode !== 200) {
				response.resume();
				reject(new Error(`GET ${url.pathname} answered ${response.statusCode}`));
				return;
			}
			const nextCursor = () => {
				const next = response.headers['x-service-next-cursor'];
				return typeof next === 'string' && next !== '' ? next : undefined;
			};
			// The same options the Service Reader gives csv-parse: header row as keys, BOM, blank lines.
			const options = { columns: true, bom: true, skip_empty_lines: true } as const;
			let bytes = 0;
			if (job.parse === 'page') {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => {
					bytes += chunk.length;
					chunks.push(chunk);
				});
				response.on('end', () => {
					try {
						const rows = (parsePage(Buffer.concat(chunks), options) as unknown[]).length;
						resolve({ rows, bytes, nextCursor: nextCursor() });
					} catch (error) {
						reject(error);
					}
				});
				response.on('error', reject);
				return;
			}
			let rows = 0;
			response.on('data', (chunk: Buffer) => {
				bytes += chunk.length;
			});
			const parser = parse(options);
			parser.on('readable', () => {
				while (parser.read() !== null) rows++;
			});
			parser.on('error', reject);
			parser.on('end', () => resolve({ rows, bytes, nextCursor: nextCursor() }));
			response.on('error', reject);
			response.pipe(parser);
		});
		request.on('error', reject);
	});
}

async function main(): Promise<void> {
	const started = process.hrtime.bigint();
	let rows = 0;
	let bytes = 0;
	let pages = 0;
	let cursor: string | undefined;
	do {
		if (pages >= job.maxPages) throw new Error(`Still paging after ${job.maxPages} pages`);
		const page = await fetchPage(cursor);
		rows += page.rows;
		bytes += page.bytes;
		pages++;
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	sharedAgent.destroy();
	// resourceUsage().maxRSS is the kernel's high-water mark for this process, in KiB.
	console.log(JSON.stringify({ rows, pages, bytes, ms, maxRssKiB: process.resourceUsage().maxRSS }));
}

main().catch((error: Error) => {
	console.error(error.message);
	process.exit(1);
});
