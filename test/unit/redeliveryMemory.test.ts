import { hasSeenAlert, liveAlerts, rememberAlert, storedAlerts, type SeenAlerts } from '../../nodes/shared/redeliveryMemory';

const hour = 60 * 60 * 1000;
const limits = { maxEntries: 3, maxAgeMs: 25 * hour };

describe('redelivery memory', () => {
	it('remembers an alert once and recognises it again', () => {
		const seen = rememberAlert([], 'al_1', 1000, limits);
		expect(hasSeenAlert(seen, 'al_1')).toBe(true);
		expect(hasSeenAlert(seen, 'al_2')).toBe(false);
		expect(rememberAlert(seen, 'al_1', 2000, limits)).toEqual([['al_1', 1000]]);
	});

	it('keeps no more than maxEntries, dropping the oldest', () => {
		let seen: SeenAlerts = [];
		for (let i = 1; i <= 5; i++) seen = rememberAlert(seen, `al_${i}`, i, limits);
		expect(seen.map(([id]) => id)).toEqual(['al_3', 'al_4', 'al_5']);
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

	it('is stored as one line per alert, oldest first, and read back the same', () => {
		const seen = rememberAlert(rememberAlert(rememberAlert([], 'al_1', 1, limits), '123', 2, limits), 'al with space', 3, limits);
		const stored = storedAlerts(seen);
		expect(stored).toBe('1 al_1\n2 123\n3 al with space');
		expect(liveAlerts(JSON.parse(JSON.stringify(stored)), 10, limits)).toEqual(seen);
		expect(liveAlerts('', 10, limits)).toEqual([]);
	});

	it('skips stored lines that are not entries, and expired ones', () => {
		const stored = ['5 al_ok', 'junk', 'x al_bad', ' al_nospace', '', `${-25 * hour} al_old`].join('\n');
		expect(liveAlerts(stored, 10, limits)).toEqual([['al_ok', 5]]);
	});

	it('does not remember an alert_id with a line break (a redelivery of it starts the workflow again)', () => {
		const seen = rememberAlert([], 'al_1\n2 al_forged', 1, limits);
		expect(seen).toEqual([]);
	});
});
