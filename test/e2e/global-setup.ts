import { n8nInstall } from './n8n-install';

/**
 * Jest globalSetup for the e2e project: installs the pinned n8n once (a few minutes the first time,
 * ~0.2 s after) so that no test's own timeout has to cover the install.
 */
export default async function globalSetup(): Promise<void> {
	const install = await n8nInstall();
	console.log(`\ne2e: n8n ${install.version} from ${install.packageDir}`);
}
