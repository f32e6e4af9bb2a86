import { pathWithNode24 } from './n8n-install';

export interface N8nEnvOptions {
	node: string;
	userFolder: string;
	encryptionKey: string;
	port: number;
	brokerPort: number;
	keyPath: string;
	certPath: string;
	/** File with every CA n8n must trust for its outgoing requests (the sandbox's). */
	extraCaPath: string;
	extra?: Record<string, string>;
}

// Settings the test process may carry (jest sets NODE_ENV=test, test/setup sets N8N_USER_FOLDER)
// that must not reach n8n: with NODE_ENV=test n8n refuses to load any nodes.
const inherited = (name: string) =>
	!/^(N8N_|DB_|QUEUE_|EXECUTIONS_|GENERIC_TIMEZONE$|WEBHOOK_URL$|NODE_ENV$|NODE_OPTIONS$|NODE_EXTRA_CA_CERTS$|E2E_TESTS$)/.test(
		name,
	);

/** The environment of every n8n process (server and CLI) for one user folder. */
export function n8nEnv(options: N8nEnvOptions): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) if (inherited(name)) env[name] = value;
	const url = `https://localhost:${options.port}/`;
	return {
		...env,
		PATH: pathWithNode24(options.node, process.env.PATH),
		NODE_ENV: 'production',
		N8N_USER_FOLDER: options.userFolder,
		N8N_ENCRYPTION_KEY: options.encryptionKey,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: 'localhost',
		N8N_PORT: String(options.port),
		// The task broker defaults to 5679; every n8n process (also each CLI run) needs its own.
		N8N_RUNNERS_BROKER_PORT: String(options.brokerPort),
		N8N_PROTOCOL: 'https',
		N8N_SSL_KEY: options.keyPath,
		N8N_SSL_CERT: options.certPath,
		// WEBHOOK_URL is the documented name; n8n 2.40 prefers N8N_WEBHOOK_URL and warns about the old one.
		WEBHOOK_URL: url,
		N8N_WEBHOOK_URL: url,
		N8N_EDITOR_BASE_URL: url,
		NODE_EXTRA_CA_CERTS: options.extraCaPath,
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_LOG_LEVEL: 'info',
		// Community packages load from <user folder>/.n8n/nodes/node_modules; nothing is fetched.
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		...options.extra,
	};
}
