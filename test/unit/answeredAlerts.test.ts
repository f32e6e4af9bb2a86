import { AnsweredAlerts } from '../../nodes/shared/answeredAlerts';

const HOUR = 60 * 60 * 1000;

describe('AnsweredAlerts (the process memory of alerts answered 2xx)', () => {
	it('knows an alert only for the trigger that answered it', () => {
		const memory = new AnsweredAlerts();
		memory.remember('wf1 node test', 'al_1', 0);
		expect(memory.has('wf1 node test', 'al_1', 1)).toBe(true);
		expect(memory.has('wf1 node production', 'al_1', 1)).toBe(false);
		expect(memory.has('wf2 node test', 'al_1', 1)).toBe(false);
		expect(memory.has('wf1 node test', 'al_2', 1)).toBe(false);
	});

	it('forgets an alert after 25 hours, past the Service\'s 24-hour retry window', () => {
		const memory = new AnsweredAlerts();
		memory.remember('t', 'al_1', 0);
		expect(memory.has('t', 'al_1', 25 * HOUR)).toBe(true);
		expect(memory.has('t', 'al_1', 25 * HOUR + 1)).toBe(false);
	});

	it('keeps at most the newest 1,000 alerts of a trigger', () => {
		const memory = new AnsweredAlerts();
		for (let i = 0; i < 1001; i++) memory.remember('t', `al_${i}`, i);
		expect(memory.has('t', 'al_0', 2000)).toBe(false);
		expect(memory.has('t', 'al_1', 2000)).toBe(true);
		expect(memory.has('t', 'al_1000', 2000)).toBe(true);
	});

	it('keeps at most its limit of triggers, dropping the one that answered least recently', () => {
		const memory = new AnsweredAlerts(3);
		memory.remember('a', 'al_a', 0);
		memory.remember('b', 'al_b', 1);
		memory.remember('c', 'al_c', 2);
		memory.remember('a', 'al_a2', 3);
		memory.remember('d', 'al_d', 4);
		expect(memory.triggers).toBe(3);
		expect(memory.has('b', 'al_b', 5)).toBe(false);
		expect(memory.has('a', 'al_a', 5)).toBe(true);
		expect(memory.has('c', 'al_c', 5)).toBe(true);
		expect(memory.has('d', 'al_d', 5)).toBe(true);
	});

	it('forgets everything as a new process would', () => {
		const memory = new AnsweredAlerts();
		memory.remember('t', 'al_1', 0);
		memory.forgetAll();
		expect(memory.has('t', 'al_1', 1)).toBe(false);
		expect(memory.triggers).toBe(0);
	});
});
