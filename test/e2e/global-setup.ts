import { n8nInstall } from './n8n-install';
import { installServices } from './queue/services';

/**
 * Jest globalSetup for the e2e project: installs the pinned n8n once (a few minutes the first time,
 * ~0.2 s after), and Redis and PostgreSQL for the queue-mode tests when missing (apt-get), so that no
 * test's own timeout has to cover an install.
 */
export default async function globalSetup(): Promise<void> {
	const install = await n8nInstall();
	console.log(`\ne2e: n8n ${install.version} from ${install.packageDir}`);
	console.log(`e2e: PostgreSQL from ${await installServices()}, redis-server on PATH`);
}
