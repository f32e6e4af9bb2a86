/**
 * Reads what `n8n execute --rawOutput` printed to a file, without loading it: for a million items
 * the run data is hundreds of megabytes. The JSON is printed with two-space indentation, so
 * top-level keys sit on lines starting with exactly two spaces.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

export interface RunSummary {
	status?: string;
	startedAt?: string;
	stoppedAt?: string;
	/** Occurrences of each counted pattern in the whole output. */
	counts: Record<string, number>;
	/** First value of each captured numeric field (e.g. `"rows": 100000`). */
	fields: Record<string, number>;
	/** The error message n8n printed, for a failed run. */
	error?: string;
	bytes: number;
}

/** Counts `patterns` over the whole file and reads the top-level fields from its tail. */
export async function scanRunOutput(path: string, patterns: string[], numericFields: string[]): Promise<RunSummary> {
	const counts: Record<string, number> = Object.fromEntries(patterns.map((p) => [p, 0]));
	const fields: Record<string, number> = {};
	const keep = Math.max(64, ...patterns.map((p) => p.length), ...numericFields.map((f) => f.length + 40));
	let carry = '';
	let bytes = 0;
	// latin1 keeps one character per byte, so patterns of plain ASCII match wherever they fall.
	for await (const chunk of createReadStream(path, { encoding: 'latin1', highWaterMark: 1 << 20 })) {
		const text = carry + (chunk as string);
		bytes += (chunk as string).length;
		// Matches are counted only when they start before the carried-over tail, so none counts twice.
		const limit = text.length - keep;
		for (const pattern of patterns) {
			for (let at = text.indexOf(pattern); at >= 0 && at < limit; at = text.indexOf(pattern, at + pattern.length)) counts[pattern]++;
		}
		for (const field of numericFields) {
			if (fields[field] !== undefined) continue;
			const match = new RegExp(`"${field}": (\\d+)`).exec(text);
			if (match) fields[field] = Number(match[1]);
		}
		carry = text.slice(Math.max(0, limit));
	}
	for (const pattern of patterns) {
		for (let at = carry.indexOf(pattern); at >= 0; at = carry.indexOf(pattern, at + pattern.length)) counts[pattern]++;
	}
	const tail = await readTail(path, 256 * 1024);
	const topLevel = (key: string) => new RegExp(`^  "${key}": "([^"]*)"`, 'm').exec(tail)?.[1];
	const error = /"message": "([^"]*)"/.exec(tail)?.[1];
	return { status: topLevel('status'), startedAt: topLevel('startedAt'), stoppedAt: topLevel('stoppedAt'), counts, fields, error, bytes };
}

async function readTail(path: string, size: number): Promise<string> {
	const file = await open(path, 'r');
	try {
		const { size: total } = await file.stat();
		const length = Math.min(size, total);
		const buffer = Buffer.alloc(length);
		await file.read(buffer, 0, length, total - length);
		return buffer.toString('utf8');
	} finally {
		await file.close();
	}
}
