import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OwnerAccount } from './n8n-owner';

/**
 * What a user folder must keep for n8n to start again on it: the encryption key (n8n refuses a
 * different one), the port (webhook URLs registered elsewhere contain it), the owner and API key.
 */
export interface N8nState {
	port: number;
	encryptionKey: string;
	owner: OwnerAccount;
	apiKey?: string;
}

/** Files the e2e tooling keeps next to n8n's own `.n8n` folder. */
export const e2eDir = (userFolder: string) => join(userFolder, '.e2e');
const statePath = (userFolder: string) => join(e2eDir(userFolder), 'state.json');

export async function readState(userFolder: string): Promise<N8nState | undefined> {
	if (!existsSync(statePath(userFolder))) return undefined;
	return JSON.parse(await readFile(statePath(userFolder), 'utf8')) as N8nState;
}

export async function writeState(userFolder: string, state: N8nState): Promise<void> {
	await mkdir(e2eDir(userFolder), { recursive: true });
	await writeFile(statePath(userFolder), JSON.stringify(state, null, 2), { mode: 0o600 });
}

export function newState(port: number): N8nState {
	return {
		port,
		encryptionKey: randomBytes(24).toString('hex'),
		owner: { email: 'owner@e2e.example', password: `E2e-${randomBytes(12).toString('hex')}` },
	};
}
