/**
 * UTF-16 bytes to WTF-8 and back, both streaming: the file export's filter reads ASCII bytes, so a
 * UTF-16 page is read as WTF-8 (UTF-8 that also writes a lone surrogate) and what it keeps is written
 * back in the page's byte order. Every code unit sequence, lone surrogates included, round-trips to the
 * very bytes sent. Pure: no n8n types.
 */
import { CsvFormatError } from '../../shared/csv';

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/** Bytes written into one buffer sized for the worst case (no array of numbers per byte). */
class Out {
	private at = 0;
	constructor(private readonly bytes: Buffer) {}
	push(...values: number[]): void {
		for (const value of values) this.bytes[this.at++] = value;
	}
	done(): Buffer {
		return this.bytes.subarray(0, this.at);
	}
}
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** UTF-16 (either byte order) in, WTF-8 out. */
export class Utf16ToWtf8 {
	private odd = -1;
	private high = -1;

	constructor(private readonly bigEndian: boolean) {}

	push(bytes: Uint8Array, final = false): Buffer {
		// At most 3 bytes per 2 in (a pending surrogate and an odd byte: 7 more).
		const out = new Out(Buffer.allocUnsafe(Math.ceil((bytes.length * 3) / 2) + 8));
		let i = 0;
		const unitAt = (a: number, b: number) => (this.bigEndian ? (a << 8) | b : (b << 8) | a);
		if (this.odd >= 0 && bytes.length > 0) {
			this.unit(unitAt(this.odd, bytes[0]), out);
			this.odd = -1;
			i = 1;
		}
		for (; i + 1 < bytes.length; i += 2) this.unit(unitAt(bytes[i], bytes[i + 1]), out);
		if (i < bytes.length) this.odd = bytes[i];
		if (final) {
			if (this.odd >= 0) throw new CsvFormatError('The page ends in the middle of a UTF-16 character (an odd number of bytes), so it cannot be kept as sent');
			if (this.high >= 0) three(this.high, out);
			this.high = -1;
		}
		return out.done();
	}

	private unit(unit: number, out: Out): void {
		if (this.high >= 0) {
			const high = this.high;
			this.high = -1;
			if (isLow(unit)) {
				const point = 0x10000 + ((high - 0xd800) << 10) + (unit - 0xdc00);
				out.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
				return;
			}
			three(high, out);
		}
		if (isHigh(unit)) this.high = unit;
		else if (unit < 0x80) out.push(unit);
		else if (unit < 0x800) out.push(0xc0 | (unit >> 6), 0x80 | (unit & 0x3f));
		else three(unit, out);
	}
}

function three(unit: number, out: Out): void {
	out.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
}

/** WTF-8 in (as `Utf16ToWtf8` wrote it, cut anywhere), UTF-16 in the given byte order out. */
export class Wtf8ToUtf16 {
	private partial: number[] = [];

	constructor(private readonly bigEndian: boolean) {}

	push(bytes: Uint8Array): Buffer {
		// At most 2 bytes per byte in (an ASCII byte), plus a sequence completed from the last call.
		const out = new Out(Buffer.allocUnsafe(bytes.length * 2 + 4));
		const put = (unit: number) => (this.bigEndian ? out.push(unit >> 8, unit & 0xff) : out.push(unit & 0xff, unit >> 8));
		for (const byte of bytes) {
			if (this.partial.length === 0) {
				if (byte < 0x80) put(byte);
				else this.partial.push(byte);
				continue;
			}
			this.partial.push(byte);
			const lead = this.partial[0];
			const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
			if (this.partial.length < length) continue;
			const [a, b, c, d] = this.partial;
			this.partial = [];
			if (length === 2) put(((a & 0x1f) << 6) | (b & 0x3f));
			else if (length === 3) put(((a & 0x0f) << 12) | ((b & 0x3f) << 6) | (c & 0x3f));
			else {
				const point = ((a & 0x07) << 18) | ((b & 0x3f) << 12) | ((c & 0x3f) << 6) | (d & 0x3f);
				put(0xd800 + ((point - 0x10000) >> 10));
				put(0xdc00 + ((point - 0x10000) & 0x3ff));
			}
		}
		return out.done();
	}
}
