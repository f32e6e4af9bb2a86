import { hasSeenAlert, liveAlerts, rememberAlert } from '../../nodes/shared/redeliveryMemory';

const hour = 60 * 60 * 1000;
const limits = { maxEntries: 3, maxAgeMs: 25 * hour };

describe('redelivery memory', () => {
	it('remembers an alert once and recognises it again', () => {
		const seen = rememberAlert(undefined, 'al_1', 1000, limits);
		expect(hasSeenAlert(seen, 'al_1')).toBe(true);
		expect(hasSeenAlert(seen, 'al_2')).toBe(false);
		expect(rememberAlert(seen, 'al_1', 2000, limits)).toEqual([['al_1', 1000]]);
	});

	it('keeps no more than maxEntries, dropping the oldest', () => {
		let seen: unknown = [];
		for (let i = 1; i <= 5; i++) seen = rememberAlert(seen, `al_${i}`, i, limits);
		expect((seen as Array<[string, number]>).map(([id]) => id)).toEqual(['al_3', 'al_4', 'al_5']);
	});

	it('forgets alerts older than maxAgeMs (24 h retries are still covered)', () => {
		const seen = rememberAlert([], 'al_old', 0, limits);
		expect(hasSeenAlert(liveAlerts(seen, 24 * hour, limits), 'al_old')).toBe(true);
		expect(hasSeenAlert(liveAlerts(seen, 25 * hour + 1, limits), 'al_old')).toBe(false);
	});

	it('ignores whatever malformed data static data may hold', () => {
		const stored = [['al_ok', 5], 'junk', ['al_bad', 'x'], [1, 2], null, ['al_nan', Number.NaN]];
		expect(liveAlerts(stored, 10, limits)).toEqual([['al_ok', 5]]);
		expect(liveAlerts({ not: 'a list' }, 10, limits)).toEqual([]);
	});

	it('round-trips through JSON, as n8n stores static data', () => {
		const seen = rememberAlert(rememberAlert([], 'al_1', 1, limits), '123', 2, limits);
		expect(JSON.parse(JSON.stringify(seen))).toEqual(seen);
	});
});
