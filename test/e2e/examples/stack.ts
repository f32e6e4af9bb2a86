import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';
import { startHttpsSink, type HttpsSink } from '../fixtures/https-sink';
import { n8nTls, startN8n, type N8n, type StartN8nOptions } from '../n8n';
import { waitFor } from '../wait-for';
import { filledExample, manualExamples, suppliersCsvPath, triggerExamples, type ExampleName } from './catalog';

/** Fixed ids, so tests and the demo can name the workflows and the credential. */
export const exampleIds: Record<ExampleName, string> = {
	portfolio: 'svcPortfolioXlsx',
	invitations: 'svcInviteFromCsv',
	ledgerAlert: 'svcLedgerAlert01',
	shareRevoked: 'svcShareRevoked1',
	supplierCheck: 'svcSupplierCheck',
	changesCrm: 'svcChangesToCrm1',
	changesSheet: 'svcChangesSheet1',
};
export const credentialId = 'svcServiceApiCr1';
/** Where the sink takes the chat messages (Slack's place) and the CRM calls. */
export const chatPath = '/slack/services/demo';
export const crmPath = '/crm/companies/';

export interface ExampleStackOptions {
	/** The package as users get it: an `npm pack` tarball. */
	tarball: string;
	/** Sandbox settings (demo data by default). */
	sandbox?: Omit<SandboxOptions, 'trustedCas'>;
	/** Progress lines, for the demo. */
	log?: (line: string) => void;
	/** Starts the n8n the examples run in. Default: one n8n process (startN8n). */
	n8n?: (options: StartN8nOptions) => Promise<StackN8n>;
}

/** The n8n of a stack: its API side, where the Service delivers webhooks, and how to stop it all. */
export interface StackN8n {
	n8n: N8n;
	/** Base of the production webhook URLs (n8n's own URL, or a load balancer's in queue mode). */
	webhookBase: string;
	stop(): Promise<void>;
}

export interface ExampleStack {
	n8n: N8n;
	sandbox: Sandbox;
	/** Stands in for Slack (under chatPath) and the CRM (under crmPath). */
	sink: HttpsSink;
	/** Production webhook URL n8n registers for each trigger example. */
	webhookUrls: Record<'ledgerAlert' | 'shareRevoked', string>;
	/** Stops n8n, the sandbox and the sink, and removes the folders; safe to call twice. */
	stop(): Promise<void>;
}

/**
 * The sandbox, an HTTPS sink and a real n8n with the package installed from its tarball, the
 * "Service API" credential, the examples imported as a user fills them in, and the trigger
 * examples activated (so their endpoints are registered with the sandbox). Everything started is
 * stopped again if a later step fails.
 */
export async function startExampleStack(options: ExampleStackOptions): Promise<ExampleStack> {
	const log = options.log ?? (() => undefined);
	const work = await mkdtemp(join(tmpdir(), 'service-examples-'));
	const stops: Array<() => Promise<void>> = [() => rm(work, { recursive: true, force: true, maxRetries: 3 })];
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= (async () => {
			// Newest first: n8n before the sandbox it talks to; every step runs even if one fails.
			const errors: unknown[] = [];
			for (const step of stops.reverse()) await step().catch((error: unknown) => errors.push(error));
			if (errors.length) throw errors[0];
		})();
		return stopping;
	};

	try {
		const userFolder = join(work, 'n8n');
		// The sandbox delivers webhooks to n8n over HTTPS, so it must trust n8n's CA from its start.
		const n8nCa = (await n8nTls(userFolder)).ca;
		const sandbox = await startSandbox({ seed: 'demo', ...options.sandbox, trustedCas: [n8nCa] });
		stops.push(() => sandbox.close());
		log(`Service sandbox on ${sandbox.baseUrl}`);
		const sink = await startHttpsSink(join(work, 'sink-tls'));
		stops.push(() => sink.close());

		// n8n 2.x reads files only under N8N_RESTRICT_FILE_ACCESS_TO (default ~/.n8n-files).
		const files = join(work, 'n8n-files');
		await mkdir(files);
		await copyFile(suppliersCsvPath, join(files, 'suppliers.csv'));

		log('Starting n8n with the package installed from its tarball...');
		const start =
			options.n8n ??
			(async (n8nOptions: StartN8nOptions) => {
				const single = await startN8n(n8nOptions);
				return { n8n: single, webhookBase: single.url, stop: () => single.stop() };
			});
		const started = await start({
			userFolder,
			trustedCas: [sandbox.ca, sink.ca],
			communityPackages: [options.tarball],
			env: { N8N_RESTRICT_FILE_ACCESS_TO: files },
		});
		stops.push(() => started.stop());
		const { n8n } = started;
		log(`n8n ${n8n.version} on ${n8n.url}`);

		await n8n.importCredentials([
			{
				id: credentialId,
				name: 'Service API',
				type: 'serviceApi',
				data: serviceApi(sandbox),
			},
		]);
		const values = {
			credentialId,
			chatUrl: `${sink.url}${chatPath}`,
			crmUrl: sink.url,
			suppliersCsv: join(files, 'suppliers.csv'),
			// What a user picks From List: a company that shares.
			companyKe: 'KE-1001',
			// Not used by the examples this stack imports (Google cannot be reached from a test).
			spreadsheetId: 'not-a-spreadsheet',
			googleCredentialId: 'noGoogleCredential',
		};
		const names = [...manualExamples, ...triggerExamples];
		await n8n.importWorkflows(names.map((name) => filledExample(name, exampleIds[name], values)));
		for (const name of triggerExamples) await n8n.api.activateWorkflow(exampleIds[name]);
		log(`Imported ${names.length} example workflows; activated ${triggerExamples.join(', ')}`);

		const webhookUrl = (name: 'ledgerAlert' | 'shareRevoked') => {
			const trigger = filledExample(name, exampleIds[name], values).nodes.find((node) => node.webhookId);
			return `${started.webhookBase}/webhook/${trigger?.webhookId}/webhook`;
		};
		const webhookUrls = { ledgerAlert: webhookUrl('ledgerAlert'), shareRevoked: webhookUrl('shareRevoked') };
		// The activate call answers before n8n has run the trigger's create(), and n8n saves the
		// endpoint's sealed secret after the Service has registered it: a delivery in between would be
		// refused (and retried a minute later). Ready means both the Service and n8n have the endpoint.
		await waitFor(
			async () => {
				const registered = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url);
				for (const name of triggerExamples as Array<'ledgerAlert' | 'shareRevoked'>) {
					if (!registered.includes(webhookUrls[name])) return undefined;
					if (!(await storedEndpointUrls(n8n, exampleIds[name])).includes(webhookUrls[name])) return undefined;
				}
				return true;
			},
			{ what: 'the trigger examples to register their webhook endpoints', timeoutMs: 60_000 },
		);
		return { n8n, sandbox, sink, webhookUrls, stop };
	} catch (error) {
		await stop().catch(() => undefined);
		throw error;
	}
}

/** Webhook URLs whose endpoint a workflow's Service Trigger has saved in its static data. */
async function storedEndpointUrls(n8n: N8n, workflowId: string): Promise<string[]> {
	const workflow = await n8n.api.request<{ staticData?: Record<string, { endpoints?: Record<string, unknown> }> | null }>(
		'GET',
		`/workflows/${workflowId}`,
	);
	return Object.values(workflow.staticData ?? {}).flatMap((node) => Object.keys(node?.endpoints ?? {}));
}

/**
 * The requests that deleted endpoint `id` at the Service, once there is one: n8n answers a
 * deactivation before it has run the trigger's delete().
 */
export function endpointDeletes(sandbox: Sandbox, id: string | undefined) {
	return waitFor(
		async () => {
			const seen = sandbox.control.requests({ method: 'DELETE', path: `/v1/reader/webhooks/${id}` });
			return seen.length > 0 ? seen : undefined;
		},
		{ what: `the DELETE of endpoint ${id}`, timeoutMs: 30_000 },
	);
}
