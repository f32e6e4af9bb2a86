import { certificates, type TlsMaterial } from '../tls/certificates';
import { listenHttps } from '../tls/httpsServer';
import { AlertLog } from './alerts';
import type { SandboxContext } from './context';
import { createControl, type SandboxControl } from './control';
import { DeliveryManager } from './deliveries';
import { dialectFromEnvironment, dialectNamed, type Dialect, type DialectName } from './dialect';
import { FaultRegistry, RouteFaults } from './faults';
import { startObjectStore, type ObjectStore } from './objectStore';
import { seedDemo, seedPortfolioRows } from './seed';
import { handleRequest } from './server';
import { emptyReader, randomToken, SandboxState } from './state';
import { readerKeys, type ReaderKey } from './types';

export type { Alert, EmitOptions, ProbeOptions } from './alerts';
export type { SandboxControl, GrantOptions, RecordView } from './control';
export type { Delivery, DeliveryAttempt } from './deliveries';
export type { FaultMode, PageFault, RouteFault } from './faults';
export type { Listing } from './paging';
export type { ObjectStore, ObjectStoreRequest } from './objectStore';
export type { Dialect, DialectName } from './dialect';
export { eventCatalogue } from './events';
export { demoCompanies, demoSharedKes } from './seed';
export { retryOffsetsSeconds } from './signing';
export * from './types';

export interface SandboxOptions {
	/** Port on 127.0.0.1; default an ephemeral port. */
	port?: number;
	/** `demo` (default): seeded companies, shares, invitations and decisions; `empty`: readers only. */
	seed?: 'demo' | 'empty';
	/** Default page size of paged exports (default 50); the `page_size` query parameter overrides it. */
	pageSize?: number;
	/** Extra generated companies shared with the main reader (e.g. 100000 for big-export tests). */
	portfolioRows?: number;
	/** Divides webhook retry delays: 86400 runs the 24-hour schedule in about a second. Default 1. */
	timeScale?: number;
	/** Extra PEM CAs trusted when POSTing deliveries (the sandbox CA and system roots are always trusted). */
	trustedCas?: string[];
	/** Clock override (epoch ms) for data dates, passkey age and signature timestamps. */
	now?: () => number;
	/** How long a passkey confirmation counts as recent, in minutes (default 5). */
	passkeyWindowMinutes?: number;
	/** Fixed access tokens instead of random ones. */
	tokens?: Partial<Record<ReaderKey, string>>;
	/**
	 * The choices made where the spec says "not shown": `default` (docs/service-choices.md) or `alt`.
	 * Default: SANDBOX_DIALECT from the environment (so whole suites run on either), else `default`.
	 * Or a whole Dialect, e.g. one drawn by a property test.
	 */
	dialect?: DialectName | Dialect;
}

export interface Sandbox {
	/** https://127.0.0.1:<port> */
	baseUrl: string;
	port: number;
	/** PEM of the CA that signed the server certificate: trust it instead of turning TLS checks off. */
	ca: string;
	/** Key and certificate (same CA, SAN 127.0.0.1/localhost) for an https webhook receiver the sandbox trusts. */
	receiverTls: TlsMaterial;
	/**
	 * Access tokens: `reader` (exports on, reader admin present), `other` (a second reader with different shares),
	 * `noExports` (exports switched off), `noAdmin` (no reader admin).
	 */
	tokens: Record<ReaderKey, string>;
	/** Bearer token of the HTTP control surface under /__control/. */
	controlToken: string;
	/** The choices this sandbox made where the spec says "not shown". */
	dialect: Dialect;
	control: SandboxControl;
	/** The object store on another origin (https://localhost:<port>) a dialect that redirects downloads serves files from; its request log. */
	objectStore: ObjectStore;
	/** Closes the server, its keep-alive sockets, in-flight deliveries and retry timers. */
	close(): Promise<void>;
}

const readerNames: Record<ReaderKey, string> = {
	reader: 'Buyer Ltd (reader)',
	other: 'Other Buyer plc',
	noExports: 'Exports Off Ltd',
	noAdmin: 'No Admin Ltd',
};

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	// The server's certificate, and a second leaf from the same CA for test webhook receivers the sandbox must trust.
	const { ca, leaves } = await certificates('Service Sandbox Test CA', {
		server: 'Service Sandbox',
		receiver: 'Service Sandbox webhook receiver',
	});
	const clock = options.now ?? Date.now;
	const tokens = Object.fromEntries(
		readerKeys.map((key) => [key, options.tokens?.[key] ?? randomToken(`svc_${key}`)]),
	) as Record<ReaderKey, string>;
	const readers = Object.fromEntries(
		readerKeys.map((key) => [key, emptyReader(key, readerNames[key], tokens[key])]),
	) as SandboxState['readers'];
	const state = new SandboxState(readers, clock);
	if ((options.seed ?? 'demo') === 'demo') seedDemo(state);
	if (options.portfolioRows) seedPortfolioRows(state, options.portfolioRows);

	const dialect = typeof options.dialect === 'object' ? options.dialect : dialectNamed(options.dialect ?? dialectFromEnvironment());
	const timeScale = options.timeScale ?? 1;
	if (!(timeScale > 0)) throw new Error(`timeScale must be a positive number; got ${timeScale}.`);
	const deliveries = new DeliveryManager({
		timeScale,
		trustedCas: [ca, ...(options.trustedCas ?? [])],
		clock,
		signatureFormat: { encoding: dialect.signatureEncoding, unit: dialect.timestampUnit, separator: dialect.signatureSeparator },
	});
	const objectStore = await startObjectStore(leaves.receiver, () => Object.values(state.readers).map((reader) => reader.token));
	const context: SandboxContext = {
		state,
		deliveries,
		alerts: new AlertLog(state, deliveries, dialect.eventValues),
		faults: new FaultRegistry(),
		routeFaults: new RouteFaults(),
		dialect,
		pageSize: options.pageSize ?? 50,
		passkeyWindowMinutes: options.passkeyWindowMinutes ?? 5,
		objectStore,
	};
	const control = createControl(context);
	const controlToken = randomToken('svc_control');

	const https = await listenHttps(
		leaves.server,
		(req, res) => void handleRequest(req, res, context, control, controlToken),
		options.port,
	);
	// Long keep-alive so clients reusing a connection do not race the server closing it.
	https.server.keepAliveTimeout = 60_000;
	https.server.on('tlsClientError', () => {
		// A client that does not trust the CA aborts the handshake; nothing to answer.
	});

	let closing: Promise<void> | undefined;
	return {
		baseUrl: https.origin,
		port: https.port,
		ca,
		receiverTls: leaves.receiver,
		tokens,
		controlToken,
		dialect,
		control,
		objectStore,
		close() {
			if (!closing) {
				deliveries.close();
				closing = Promise.all([https.close(), objectStore.close()]).then(() => undefined);
			}
			return closing;
		},
	};
}
