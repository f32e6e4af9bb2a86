import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCommunityPackage } from './community-package';
import { freePort, freePorts } from './free-port';
import { httpsRequest, type HttpsResponse } from './https-request';
import { N8nApi } from './n8n-api';
import { checked, parseExecuteOutput, runCli, type CliResult, type ExecuteResult } from './n8n-cli';
import { n8nEnv } from './n8n-env';
import { n8nInstall, type N8nInstall } from './n8n-install';
import { createApiKey, login, setupOwner, type OwnerAccount } from './n8n-owner';
import { e2eDir, newState, readState, writeState, type N8nState } from './n8n-state';
import { ProcessGroup } from './process-group';
import { ensureLocalhostTls, type LocalhostTls } from './tls';
import { GiveUp, waitFor } from './wait-for';

export { installCommunityPackage, packPackage } from './community-package';
export { nodeItems, parseExecuteOutput, type CliResult, type ExecuteResult } from './n8n-cli';
export type { Execution } from './n8n-api';

export interface StartN8nOptions {
	/**
	 * Start on the user folder of an earlier run (same port, certificate, owner, API key, workflows,
	 * credentials, executions). Default: a new temporary folder.
	 */
	userFolder?: string;
	/** Keep the user folder on stop(). Default: removed when startN8n created it, kept when given. */
	keepUserFolder?: boolean;
	/** PEM CAs n8n must trust for its outgoing HTTPS calls (the sandbox's), via NODE_EXTRA_CA_CERTS. */
	trustedCas?: string[];
	/** `npm pack` tarballs installed as community packages before n8n starts. */
	communityPackages?: string[];
	/** More environment for n8n, server and CLI. */
	env?: Record<string, string>;
	/** Bound on the start, until the editor is up and the API key works. Default 120 s. */
	readyTimeoutMs?: number;
}

export interface N8n {
	/** https://localhost:<port> (no trailing slash). Webhooks are under `${url}/webhook/`. */
	readonly url: string;
	readonly port: number;
	/** PEM of the CA that signed n8n's certificate: trust it to call n8n (the sandbox must). */
	readonly ca: string;
	readonly caPath: string;
	readonly userFolder: string;
	readonly version: string;
	/** Public API key (X-N8N-API-KEY) of the owner. */
	readonly apiKey: string;
	/** The owner's sign-in for the editor (the demo prints it). */
	readonly owner: OwnerAccount;
	/** Public API: activate/deactivate workflows, read executions, call and await webhooks. */
	readonly api: N8nApi;
	/** Runs an n8n CLI command on the same user folder and settings (its own task broker port). */
	cli(args: string[], options?: { timeoutMs?: number }): Promise<CliResult>;
	/** `n8n import:workflow`; a workflow without an id gets one. Returns the id. */
	importWorkflow(workflow: Record<string, unknown>): Promise<string>;
	/** Several workflows in one `n8n import:workflow` (each CLI run takes seconds). Returns their ids. */
	importWorkflows(workflows: Array<Record<string, unknown>>): Promise<string[]>;
	/** `n8n import:credentials` of credentials with plain `data` (n8n encrypts it). */
	importCredentials(credentials: Array<Record<string, unknown>>): Promise<void>;
	/**
	 * `n8n execute --id`: the run data n8n printed, for a failed run too (`status: 'error'`,
	 * `data.resultData.error`); throws with the output when there is none (unknown id, crash).
	 */
	executeWorkflow(id: string, options?: { timeoutMs?: number }): Promise<ExecuteResult>;
	/** Whether the running n8n has loaded a node type, e.g. `n8n-nodes-service-reader.serviceReader`. */
	hasNodeType(name: string, version?: number): Promise<boolean>;
	/**
	 * The editor's internal REST API (`/rest…`) signed in as the owner: what the UI does where the
	 * public API has no route (credential test, binary data download).
	 */
	rest(method: string, path: string, body?: unknown): Promise<HttpsResponse>;
	/** What the current n8n process printed so far (the log file is `<userFolder>/.e2e/n8n.log`). */
	logs(): string;
	/**
	 * Stops n8n and starts it again on the same user folder and port; `env` changes n8n's settings
	 * from this start on (e.g. WEBHOOK_URL), `whileStopped` runs while no n8n process is up.
	 */
	restart(changes?: { env?: Record<string, string>; whileStopped?: () => Promise<void> }): Promise<void>;
	/** Stops n8n and its task runners (whole process group); removes the user folder if it was ours. */
	stop(): Promise<void>;
}

/**
 * Starts the pinned n8n (or the one N8N_E2E_VERSION / N8N_E2E_NODE choose) over HTTPS on a free port,
 * headless, with an owner and an API key.
 */
export async function startN8n(options: StartN8nOptions = {}): Promise<N8n> {
	const install = await n8nInstall();
	const ownFolder = options.userFolder === undefined;
	const userFolder = options.userFolder ?? (await mkdtemp(join(tmpdir(), 'n8n-e2e-')));
	const instance = new N8nInstance(install, userFolder, options, ownFolder && !options.keepUserFolder);
	try {
		await instance.prepare();
		await instance.start();
		return instance;
	} catch (error) {
		await instance.stop();
		throw error;
	}
}

/**
 * The CA and certificate n8n serves with from `userFolder` (made on first use). Call it before
 * startN8n({ userFolder }) when a server started earlier must trust n8n, e.g. the sandbox that
 * delivers webhooks to it.
 */
export function n8nTls(userFolder: string): Promise<LocalhostTls> {
	return ensureLocalhostTls(join(e2eDir(userFolder), 'tls'), 'n8n e2e test CA');
}

class N8nInstance implements N8n {
	private process?: ProcessGroup;
	private state!: N8nState;
	private tls!: LocalhostTls;
	private cookie?: string;
	private apiClient?: N8nApi;
	/** Settings changed by restart(), over the options' env. */
	private envChanges: Record<string, string> = {};

	constructor(
		private readonly install: N8nInstall,
		readonly userFolder: string,
		private readonly options: StartN8nOptions,
		private readonly removeFolder: boolean,
	) {}

	get url() {
		return `https://localhost:${this.state.port}`;
	}
	get port() {
		return this.state.port;
	}
	get ca() {
		return this.tls.ca;
	}
	get caPath() {
		return this.tls.caPath;
	}
	get version() {
		return this.install.version;
	}
	get apiKey() {
		if (!this.state.apiKey) throw new Error('n8n has not started');
		return this.state.apiKey;
	}
	get owner() {
		return { ...this.state.owner };
	}
	get api() {
		this.apiClient ??= new N8nApi(this.url, this.ca, this.apiKey);
		return this.apiClient;
	}

	async prepare(): Promise<void> {
		this.state = (await readState(this.userFolder)) ?? newState(await freePort());
		await writeState(this.userFolder, this.state);
		this.tls = await n8nTls(this.userFolder);
		// n8n's own CA too: n8n may call its own webhook URLs.
		const cas = [...(this.options.trustedCas ?? []), this.tls.ca].map((pem) => pem.trim()).join('\n');
		await writeFile(this.extraCaPath, `${cas}\n`);
		for (const tarball of this.options.communityPackages ?? []) {
			await installCommunityPackage(this.userFolder, tarball);
		}
	}

	async start(): Promise<void> {
		const timeoutMs = this.options.readyTimeoutMs ?? 120_000;
		const deadline = Date.now() + timeoutMs;
		const [brokerPort] = await freePorts(1);
		this.process = new ProcessGroup(this.install.node, [this.install.bin, 'start'], {
			cwd: this.userFolder,
			env: this.env(brokerPort),
			logFile: join(e2eDir(this.userFolder), 'n8n.log'),
		});
		const server = this.process;
		await waitFor(
			async () => {
				if (!server.running) throw new GiveUp('n8n exited during start');
				// Printed after the server is up and active workflows (with their webhooks) are registered.
				if (!server.text.includes('Editor is now accessible via')) return undefined;
				const readiness = await httpsRequest(`${this.url}/healthz/readiness`, { ca: this.ca, timeoutMs: 5_000 });
				return readiness.status === 200 ? true : undefined;
			},
			{ what: `n8n to be ready on ${this.url}`, timeoutMs },
		).catch((error: Error) => {
			throw new Error(`${error.message}\n--- n8n output ---\n${tail(server.text)}`);
		});
		await this.signIn(Math.max(deadline - Date.now(), 10_000));
	}

	private async signIn(timeoutMs: number): Promise<void> {
		const endpoint = { url: this.url, ca: this.ca };
		if (this.state.apiKey) {
			this.cookie = await login(endpoint, this.state.owner);
		} else {
			this.cookie = await setupOwner(endpoint, this.state.owner);
			this.state.apiKey = await createApiKey(endpoint, this.cookie);
			await writeState(this.userFolder, this.state);
		}
		this.apiClient = undefined;
		// The key works once the public API answers with it.
		await waitFor(async () => (await this.api.request('GET', '/workflows?limit=1')) && true, {
			what: 'the public API to accept the API key',
			timeoutMs,
		});
	}

	private get extraCaPath(): string {
		return join(e2eDir(this.userFolder), 'trusted-cas.pem');
	}

	private env(brokerPort: number): NodeJS.ProcessEnv {
		return n8nEnv({
			node: this.install.node,
			userFolder: this.userFolder,
			encryptionKey: this.state.encryptionKey,
			port: this.state.port,
			brokerPort,
			keyPath: this.tls.keyPath,
			certPath: this.tls.certPath,
			extraCaPath: this.extraCaPath,
			extra: { ...this.install.env, ...this.options.env, ...this.envChanges },
		});
	}

	async cli(args: string[], options: { timeoutMs?: number } = {}): Promise<CliResult> {
		// Each CLI process starts its own task broker: a port of its own, or it clashes with the server's.
		const env = this.env(await freePort());
		return runCli({
			node: this.install.node,
			bin: this.install.bin,
			cwd: this.userFolder,
			env,
			args,
			timeoutMs: options.timeoutMs ?? 120_000,
		});
	}

	async importWorkflow(workflow: Record<string, unknown>): Promise<string> {
		const [id] = await this.importWorkflows([workflow]);
		return id;
	}

	async importWorkflows(workflows: Array<Record<string, unknown>>): Promise<string[]> {
		const withIds = workflows.map((workflow) => ({
			...workflow,
			id: typeof workflow.id === 'string' ? workflow.id : randomBytes(8).toString('hex'),
		}));
		const ids = withIds.map((workflow) => workflow.id);
		// import:workflow reads one workflow or an array of them (the export:workflow --all format).
		const file = await this.importFile('workflow', withIds.length === 1 ? withIds[0] : withIds);
		checked(await this.cli(['import:workflow', `--input=${file}`]), `n8n import:workflow ${ids.join(', ')}`);
		return ids;
	}

	async importCredentials(credentials: Array<Record<string, unknown>>): Promise<void> {
		const file = await this.importFile('credentials', credentials);
		checked(await this.cli(['import:credentials', `--input=${file}`]), 'n8n import:credentials');
	}

	private async importFile(kind: string, content: unknown): Promise<string> {
		const dir = join(e2eDir(this.userFolder), 'import');
		await mkdir(dir, { recursive: true });
		const file = join(dir, `${kind}-${randomBytes(6).toString('hex')}.json`);
		await writeFile(file, JSON.stringify(content, null, 2), { mode: 0o600 });
		return file;
	}

	async executeWorkflow(id: string, options: { timeoutMs?: number } = {}): Promise<ExecuteResult> {
		const result = await this.cli(['execute', `--id=${id}`, '--rawOutput'], options);
		// A failed run exits 1 and still prints its run data (with resultData.error): return it too.
		try {
			return parseExecuteOutput(result.stdout);
		} catch {
			checked(result, `n8n execute --id=${id}`);
			throw new Error(`n8n execute --id=${id} printed no run data:\n${result.stdout.slice(-3000)}`);
		}
	}

	async hasNodeType(name: string, version = 1): Promise<boolean> {
		// What the editor asks when it opens a node: 200 with the description, 400 for an unknown type.
		const response = await this.rest('POST', '/rest/node-types', { nodeInfos: [{ name, version }] });
		if (response.status === 200) return response.json<{ data: unknown[] }>().data.length === 1;
		if (response.status === 400 && response.body.includes('Unrecognized node type')) return false;
		throw new Error(`node types: ${response.status} ${response.body.slice(0, 300)}`);
	}

	async rest(method: string, path: string, body?: unknown): Promise<HttpsResponse> {
		this.cookie ??= await login({ url: this.url, ca: this.ca }, this.state.owner);
		return httpsRequest(`${this.url}${path}`, { method, ca: this.ca, headers: { cookie: this.cookie }, body });
	}

	logs(): string {
		return this.process?.text ?? '';
	}

	async restart(changes: { env?: Record<string, string>; whileStopped?: () => Promise<void> } = {}): Promise<void> {
		await this.process?.stop();
		this.cookie = undefined;
		this.envChanges = { ...this.envChanges, ...changes.env };
		await changes.whileStopped?.();
		await this.start();
	}

	async stop(): Promise<void> {
		try {
			await this.process?.stop();
		} finally {
			this.process = undefined;
			if (this.removeFolder) await rm(this.userFolder, { recursive: true, force: true, maxRetries: 3 });
		}
	}
}

function tail(text: string, lines = 60): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}

// `tsx test/e2e/n8n.ts [--trust <ca.pem>]... [--package <tarball>]...`: n8n for trying things by hand.
if (require.main === module) {
	void (async () => {
		const { readFileSync } = await import('node:fs');
		const argv = process.argv.slice(2);
		const values = (flag: string) => argv.flatMap((arg, i) => (arg === flag && argv[i + 1] ? [argv[i + 1]] : []));
		const n8n = await startN8n({
			trustedCas: values('--trust').map((file) => readFileSync(file, 'utf8')),
			communityPackages: values('--package'),
		});
		console.log(`n8n ${n8n.version} on ${n8n.url}\nCA: ${n8n.caPath}\nAPI key: ${n8n.apiKey}\nUser folder: ${n8n.userFolder}`);
		console.log(`Owner: see ${join(e2eDir(n8n.userFolder), 'state.json')}. Ctrl+C stops.`);
		const stop = () => void n8n.stop().then(() => process.exit(0));
		process.once('SIGINT', stop);
		process.once('SIGTERM', stop);
	})().catch((error: Error) => {
		console.error(error.message);
		process.exit(1);
	});
}
