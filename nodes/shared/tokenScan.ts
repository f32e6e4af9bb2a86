/**
 * One decoding's scan for the token's bytes (tokenMatch.ts): KMP over the decoded bytes, each byte
 * remembering where its unit was in the input; linear. Pure, no regular expressions.
 */
import type { PreparedDecoding, Source, Unit } from './tokenDecoding';
import { BACKSLASH, decodeAt, REPLACEMENT, SLASH, UNDERSCORE } from './tokenDecoding';

/** KMP over the token's bytes, fed decoded bytes that each remember their unit's place in the input. */
/** The token's bytes (as typed or folded), made once: KMP's failure table and which bytes it holds. */
export interface Prepared {
	pattern: Uint8Array;
	failure: Int32Array;
	holds: Uint8Array;
}

export function prepare(pattern: Uint8Array): Prepared {
	const failure = new Int32Array(pattern.length);
	for (let i = 1, k = 0; i < pattern.length; i++) {
		while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1];
		if (pattern[i] === pattern[k]) k++;
		failure[i] = k;
	}
	const holds = new Uint8Array(256);
	for (const byte of pattern) holds[byte] = 1;
	return { pattern, failure, holds };
}

class Matcher {
	private readonly pattern: Uint8Array;
	private readonly failure: Int32Array;
	/** Where each of the last bytes fed began, made on the first byte (most scans feed none). */
	private starts: Int32Array | undefined;
	private state = 0;
	private fed = 0;
	readonly ranges: Array<[number, number]> = [];

	constructor(prepared: Prepared) {
		this.pattern = prepared.pattern;
		this.failure = prepared.failure;
	}

	/** Forgets a partial match: the scan jumps over text that cannot be part of one. */
	reset(): void {
		this.state = 0;
	}

	feed(byte: number, start: number, end: number): void {
		const { pattern, failure } = this;
		this.starts ??= new Int32Array(pattern.length);
		const starts = this.starts;
		starts[this.fed % pattern.length] = start;
		this.fed++;
		let k = this.state;
		while (k > 0 && byte !== pattern[k]) k = failure[k - 1];
		if (byte === pattern[k]) k++;
		if (k === pattern.length) {
			this.add(starts[this.fed % pattern.length], end);
			k = failure[k - 1];
		}
		this.state = k;
	}

	private add(start: number, end: number): void {
		const last = this.ranges[this.ranges.length - 1];
		if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
		else this.ranges.push([start, end]);
	}
}

function utf8(codePoint: number, emit: (byte: number) => void): void {
	if (codePoint < 0x80) emit(codePoint);
	else if (codePoint < 0x800) {
		emit(0xc0 | (codePoint >> 6));
		emit(0x80 | (codePoint & 0x3f));
	} else if (codePoint < 0x10000) {
		emit(0xe0 | (codePoint >> 12));
		emit(0x80 | ((codePoint >> 6) & 0x3f));
		emit(0x80 | (codePoint & 0x3f));
	} else {
		emit(0xf0 | (codePoint >> 18));
		emit(0x80 | ((codePoint >> 12) & 0x3f));
		emit(0x80 | ((codePoint >> 6) & 0x3f));
		emit(0x80 | (codePoint & 0x3f));
	}
}

/**
 * One decoding's scan. A match that is not the token as typed holds an escape, and spans at most as
 * many units as the token has bytes, each before the escape one character (two for a surrogate pair):
 * so text farther than that from every escape character is jumped over (found by the runtime's search),
 * and a long answer with few escapes costs little more than that search. The raw, folded scan (file
 * names) reads everything.
 */
export function scan(source: Source, prepared: Prepared, { decoding, introducers, isIntroducer }: PreparedDecoding, foldSlashes: boolean): Array<[number, number]> {
	const { pattern } = prepared;
	const matcher = new Matcher(prepared);
	const unit: Unit = { byte: -1, codePoint: -1, length: 1 };
	const skipping = introducers.length > 0;
	const nextAt = introducers.map(() => -2);
	const margin = 2 * pattern.length + 2;
	let start = 0;
	let end = 0;
	// Bytes fed since the last escape: once the token's length, no match can still hold that escape.
	let sinceEscape = Number.POSITIVE_INFINITY;
	const emit = (byte: number) => {
		sinceEscape++;
		matcher.feed(foldSlashes && (byte === SLASH || byte === BACKSLASH) ? UNDERSCORE : byte, start, end);
	};
	const tokenBytes = prepared.holds;
	const fold = (byte: number) => (foldSlashes && (byte === SLASH || byte === BACKSLASH) ? UNDERSCORE : byte);
	let allIn = true;
	const check = (byte: number) => {
		if (tokenBytes[fold(byte)] === 0) allIn = false;
	};
	/** Whether every byte the unit decodes to is one of the token's: else no match can hold it. */
	const inToken = (decoded: Unit) => {
		allIn = true;
		if (decoded.byte >= 0) check(decoded.byte);
		else utf8(decoded.codePoint, check);
		return allIn;
	};
	const length = source.length;
	for (let at = 0; at < length; at = end) {
		if (skipping && sinceEscape >= pattern.length) {
			// `at` is where a unit starts, and so is each escape character up to the next one: what lies
			// between is characters as they are. An escape whose character is not in the token is passed over.
			let resume = -1;
			while (resume < 0) {
				let next = -1;
				for (let i = 0; i < introducers.length; i++) {
					if (nextAt[i] !== -1 && nextAt[i] < at) nextAt[i] = source.indexOf(introducers[i], at);
					if (nextAt[i] !== -1 && (next === -1 || nextAt[i] < next)) next = nextAt[i];
				}
				if (next === -1) return matcher.ranges;
				// Not an escape there, the character itself counts: the token may hold it.
				const decoded = decodeAt(source, next, decoding, unit);
				if (decoded ? inToken(unit) : tokenBytes[fold(source.code(next))] === 1) {
					resume = Math.max(at, next - margin);
					// Read on up to that escape without asking again (a character is at most 3 bytes here).
					sinceEscape = -3 * (next - resume) - 1;
				} else {
					at = next + (decoded ? unit.length : 1);
					matcher.reset();
				}
			}
			if (resume > at) matcher.reset();
			at = resume;
			if (at >= length) break;
		}
		start = at;
		const code = source.code(at);
		// Most characters: ASCII and no escape, fed as they are.
		if (code < 0x80 && isIntroducer[code] === 0) {
			end = at + 1;
			sinceEscape++;
			matcher.feed(foldSlashes && (code === SLASH || code === BACKSLASH) ? UNDERSCORE : code, start, end);
			continue;
		}
		if (decodeAt(source, at, decoding, unit)) {
			end = at + unit.length;
			if (inToken(unit)) sinceEscape = 0;
			if (unit.byte >= 0) emit(unit.byte);
			else utf8(unit.codePoint, emit);
			continue;
		}
		if (!source.text) {
			end = at + 1;
			emit(code);
			continue;
		}
		let codePoint = code;
		end = at + 1;
		if (code >= 0xd800 && code <= 0xdbff && at + 1 < length) {
			const low = source.code(at + 1);
			if (low >= 0xdc00 && low <= 0xdfff) {
				codePoint = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
				end = at + 2;
			}
		}
		utf8(codePoint >= 0xd800 && codePoint <= 0xdfff ? REPLACEMENT : codePoint, emit);
	}
	return matcher.ranges;
}

