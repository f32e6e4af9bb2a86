import fc from 'fast-check';

import { alertIdBytesWhenNotText } from '../../nodes/ServiceTrigger/delivery/alertIdBytes';
import { readServiceEvent } from '../../nodes/ServiceTrigger/delivery/events';
import { runs } from '../property/fc';

/**
 * Alert ids compared as the bytes sent (issue 31): whatever the body around it, the top-level
 * alert_id's bytes are found; decoding that loses nothing leaves the id as text (the stored keys of
 * ordinary ids unchanged), decoding that loses something (bytes that are not UTF-8, an escaped lone
 * surrogate) keeps the bytes, and two ids that differ in bytes never share a key.
 */

// Pieces of an alert_id as it appears between its quotes: text, escapes, and bytes that are not UTF-8.
const piece = fc.oneof(
	fc.constantFrom('al_', 'A', '0', '-', 'é', '€', '😀', '\\n', '\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', '\\ud800', '\\udc00', '\\/').map((text) => Buffer.from(text)),
	fc.constantFrom(0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xfe, 0xff).map((byte) => Buffer.from([byte])),
);
const alertIdBytes = fc.array(piece, { minLength: 1, maxLength: 8 }).map((pieces) => Buffer.concat(pieces));

// Other members, some holding `alert_id` themselves (nested: not the alert's).
const otherMembers = fc.array(
	fc.tuple(
		fc.constantFrom('event_type', 'ids', 'severity', 'occurred_at', 'extra', 'nested'),
		fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ alert_id: 'not this one', list: ['}', '{', '"'] })),
	),
	{ maxLength: 4 },
);
const space = fc.constantFrom('', ' ', '\n', '\t ');

function body(members: Array<[string, unknown]>, id: Buffer, at: number, gap: string, key = '"alert_id"'): Buffer {
	const parts = members.map(([name, value]) => Buffer.from(`${JSON.stringify(name)}${gap}:${gap}${JSON.stringify(value)}`));
	parts.splice(at % (parts.length + 1), 0, Buffer.concat([Buffer.from(`${key}${gap}:${gap}"`), id, Buffer.from('"')]));
	const joined: Buffer[] = [];
	parts.forEach((part, index) => joined.push(...(index > 0 ? [Buffer.from(`${gap},${gap}`)] : []), part));
	return Buffer.concat([Buffer.from(`${gap}{${gap}`), ...joined, Buffer.from(`${gap}}${gap}`)]);
}

/** What decoding the id loses, found another way: the body decoded as UTF-8 and read by JSON.parse, then re-encoded. */
function decodingLoses(id: Buffer): boolean {
	const text = JSON.parse(`"${id.toString('utf8')}"`) as string;
	return /\p{Cs}/u.test(text) || !Buffer.from(id.toString('utf8')).equals(id);
}

describe('alert_id bytes', () => {
	it('finds the top-level alert_id anywhere in the body and keeps its bytes exactly when decoding loses some', () => {
		fc.assert(
			fc.property(otherMembers, alertIdBytes, fc.nat(), space, (members, id, at, gap) => {
				const sent = body(members, id, at, gap);
				const found = alertIdBytesWhenNotText(sent);
				expect(found).toBe(decodingLoses(id) ? id.toString('base64') : undefined);
			}),
			runs(1_000),
		);
	});

	it('gives two ids differing in bytes two keys, and the same bytes one key', () => {
		fc.assert(
			fc.property(alertIdBytes, alertIdBytes, (a, b) => {
				const keyOf = (id: Buffer) => {
					const reading = readServiceEvent(body([['event_type', 'ledger_high'], ['ids', { organisation: 'KE-1' }]], id, 1, ''));
					if ('problem' in reading) throw new Error(reading.problem);
					return reading.alertKey;
				};
				const sameText = JSON.parse(`"${a.toString('utf8')}"`) === JSON.parse(`"${b.toString('utf8')}"`);
				// Bytes apart are keys apart, except two escapes of one lossless text (\u00e9 and é): one id, as JSON reads it.
				if (!a.equals(b) && (!sameText || decodingLoses(a) || decodingLoses(b))) expect(keyOf(a)).not.toBe(keyOf(b));
				expect(keyOf(a)).toBe(keyOf(Buffer.from(a)));
			}),
			runs(500),
		);
	});

	it('gives two integer ids beyond 2^53 that round onto one number two keys, each kept as sent', () => {
		fc.assert(
			fc.property(fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }), fc.bigInt({ min: 1n, max: 9n }), (id, step) => {
				const keyOf = (text: string) => {
					const reading = readServiceEvent(Buffer.from(`{"event_type":"ledger_high","alert_id":${text},"ids":{"organisation":"KE-1"}}`));
					if ('problem' in reading) throw new Error(reading.problem);
					return reading.alertKey;
				};
				const [a, b] = [String(id), String(id + step)];
				expect(keyOf(a)).not.toBe(keyOf(b));
				expect(keyOf(a)).toBe(keyOf(a));
				const kept = JSON.stringify(JSON.parse(a)) === a;
				expect(alertIdBytesWhenNotText(Buffer.from(`{"alert_id":${a}}`))).toBe(kept ? undefined : Buffer.from(a).toString('base64'));
			}),
			runs(300),
		);
		// A number JavaScript keeps digit for digit stays text, its stored key unchanged.
		expect(alertIdBytesWhenNotText(Buffer.from('{"alert_id": 9007199254740991}'))).toBeUndefined();
		expect(alertIdBytesWhenNotText(Buffer.from('{"alert_id":-12}'))).toBeUndefined();
	});

	it('reads the last alert_id, as JSON.parse does, and its name however escaped', () => {
		const last = body([['alert_id', 'first']], Buffer.from([0x61, 0xff]), 1, '');
		expect(alertIdBytesWhenNotText(last)).toBe(Buffer.from([0x61, 0xff]).toString('base64'));
		const shadowed = Buffer.concat([body([], Buffer.from([0x61, 0xff]), 0, '').subarray(0, -1), Buffer.from(',"alert_id":"plain"}')]);
		expect(alertIdBytesWhenNotText(shadowed)).toBeUndefined();
		expect(alertIdBytesWhenNotText(body([], Buffer.from([0xfe]), 0, ' ', '"alert\\u005fid"'))).toBe(Buffer.from([0xfe]).toString('base64'));
		expect(alertIdBytesWhenNotText(Buffer.from('{"alert_id":12}'))).toBeUndefined();
		expect(alertIdBytesWhenNotText(Buffer.from('[{"alert_id":"\\ud800"}]'))).toBeUndefined();
	});
});
