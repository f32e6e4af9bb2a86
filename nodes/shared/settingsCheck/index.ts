import type { CheckedCredential, Finding, Probe } from './types';

export * from './types';

/** Runs every check within PROBE_LIMITS (GETs only), in a fixed order; a check the budget leaves no room for is `unknown`, saying so. */
export async function checkSettings(_probe: Probe, _credential: CheckedCredential, _now: () => number = Date.now): Promise<Finding[]> {
	throw new Error('checkSettings: not built yet');
}

/** One message for the credential dialog: `ok` only when nothing is left to change; each change as "Set <label> to `<value>`". */
export function settingsMessage(_findings: readonly Finding[]): { ok: boolean; message: string } {
	throw new Error('settingsMessage: not built yet');
}
