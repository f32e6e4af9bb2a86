import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';

import { AlertLog } from './alerts';
import { sandboxCertificates, type TlsMaterial } from './certs';
import type { SandboxContext } from './context';
import { createControl, type SandboxControl } from './control';
import { DeliveryManager } from './deliveries';
import { dialectNamed, type DialectName } from './dialect';
import { FaultRegistry, RouteFaults } from './faults';
import { seedDemo, seedPortfolioRows } from './seed';
import { handleRequest } from './server';
import { emptyReader, randomToken, SandboxState } from './state';
import { readerKeys, type ReaderKey } from './types';

export type { Alert, EmitOptions, ProbeOptions } from './alerts';
export type { SandboxControl, GrantOptions, RecordView } from './control';
export type { Delivery, DeliveryAttempt } from './deliveries';
export type { FaultMode, PageFault, RouteFault } from './faults';
export type { Listing } from './paging';
export type { DialectName } from './dialect';
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
	/** The choices made where the spec says "not shown": `default` (README, Assumptions) or `alt`. */
	dialect?: DialectName;
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
	control: SandboxControl;
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
	const certificates = await sandboxCertificates();
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

	const dialect = dialectNamed(options.dialect);
	const timeScale = options.timeScale ?? 1;
	if (!(timeScale > 0)) throw new Error(`timeScale must be a positive number; got ${timeScale}.`);
	const deliveries = new DeliveryManager({
		timeScale,
		trustedCas: [certificates.ca, ...(options.trustedCas ?? [])],
		clock,
		signatureEncoding: dialect.signatureEncoding,
	});
	const context: SandboxContext = {
		state,
		deliveries,
		alerts: new AlertLog(state, deliveries),
		faults: new FaultRegistry(),
		routeFaults: new RouteFaults(),
		dialect,
		pageSize: options.pageSize ?? 50,
		passkeyWindowMinutes: options.passkeyWindowMinutes ?? 5,
	};
	const control = createControl(context);
	const controlToken = randomToken('svc_control');

	const server: Server = createServer({ key: certificates.server.key, cert: certificates.server.cert }, (req, res) => {
		void handleRequest(req, res, context, control, controlToken);
	});
	// Long keep-alive so clients reusing a connection do not race the server closing it.
	server.keepAliveTimeout = 60_000;
	const sockets = new Set<Socket>();
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	server.on('tlsClientError', () => {
		// A client that does not trust the CA aborts the handshake; nothing to answer.
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;

	let closing: Promise<void> | undefined;
	return {
		baseUrl: `https://127.0.0.1:${port}`,
		port,
		ca: certificates.ca,
		receiverTls: certificates.receiver,
		tokens,
		controlToken,
		control,
		close() {
			closing ??= new Promise<void>((resolve) => {
				deliveries.close();
				server.close(() => resolve());
				server.closeAllConnections();
				for (const socket of sockets) socket.destroy();
			});
			return closing;
		},
	};
}
