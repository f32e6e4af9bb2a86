/**
 * A user folder of the end-to-end suite's n8n prepared for `n8n execute`: the package installed
 * from its `npm pack` tarball, credentials and workflows imported; then the server is stopped, so
 * each measured `n8n execute` is the only n8n running.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';

import { freePort } from '../test/e2e/free-port';
import { startN8n } from '../test/e2e/n8n';
import { n8nEnv } from '../test/e2e/n8n-env';
import { n8nInstall } from '../test/e2e/n8n-install';
import { e2eDir, readState } from '../test/e2e/n8n-state';
import { ensureLocalhostTls } from '../test/e2e/tls';

export interface ExecuteHost {
	node: string;
	bin: string;
	userFolder: string;
	version: string;
	/** The environment startN8n gives its CLI runs, with a free task broker port of its own. */
	env(): Promise<NodeJS.ProcessEnv>;
	remove(): Promise<void>;
}

export interface ExecuteHostOptions {
	tarball: string;
	trustedCas: string[];
	credentials: Array<Record<string, unknown>>;
	workflows: Array<Record<string, unknown>>;
}

export async function prepareExecuteHost(options: ExecuteHostOptions): Promise<ExecuteHost> {
	const install = await n8nInstall();
	const n8n = await startN8n({ keepUserFolder: true, trustedCas: options.trustedCas, communityPackages: [options.tarball] });
	const { userFolder } = n8n;
	try {
		if (!(await n8n.hasNodeType('n8n-nodes-service-reader.serviceReader'))) {
			throw new Error('n8n did not load n8n-nodes-service-reader from the packed tarball');
		}
		await n8n.importCredentials(options.credentials);
		for (const workflow of options.workflows) await n8n.importWorkflow(workflow);
	} catch (error) {
		await n8n.stop();
		await rm(userFolder, { recursive: true, force: true });
		throw error;
	}
	await n8n.stop();

	const state = await readState(userFolder);
	if (!state) throw new Error(`No e2e state in ${userFolder}`);
	// The files startN8n made in the user folder: the same TLS and trusted CAs as its own CLI runs.
	const tls = await ensureLocalhostTls(join(e2eDir(userFolder), 'tls'), 'n8n e2e test CA');
	return {
		node: install.node,
		bin: install.bin,
		userFolder,
		version: install.version,
		env: async () =>
			n8nEnv({
				node: install.node,
				userFolder,
				encryptionKey: state.encryptionKey,
				port: state.port,
				brokerPort: await freePort(),
				keyPath: tls.keyPath,
				certPath: tls.certPath,
				extraCaPath: join(e2eDir(userFolder), 'trusted-cas.pem'),
			}),
		remove: () => rm(userFolder, { recursive: true, force: true, maxRetries: 3 }),
	};
}
