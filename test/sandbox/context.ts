import type { IncomingMessage, ServerResponse } from 'node:http';

import type { AlertLog } from './alerts';
import type { DeliveryManager } from './deliveries';
import type { Dialect } from './dialect';
import type { FaultRegistry, RouteFaults } from './faults';
import type { ObjectStore } from './objectStore';
import type { SandboxState } from './state';
import type { ReaderOrg } from './types';

/** What route handlers and the control API share. */
export interface SandboxContext {
	state: SandboxState;
	deliveries: DeliveryManager;
	alerts: AlertLog;
	faults: FaultRegistry;
	routeFaults: RouteFaults;
	/** The choices this sandbox makes where the spec says "not shown". */
	dialect: Dialect;
	/** Default page size of paged exports (`page_size` overrides per request). */
	pageSize: number;
	/** How long a passkey confirmation counts as recent. */
	passkeyWindowMinutes: number;
	/** Where a dialect that redirects downloads keeps its files. */
	objectStore: ObjectStore;
}

export interface RouteContext {
	req: IncomingMessage;
	res: ServerResponse;
	url: URL;
	/** Decoded path parameters, in order. */
	params: string[];
	body: Buffer;
	/** The authenticated reader; set on every route except public ones. */
	reader: ReaderOrg;
	sandbox: SandboxContext;
}

/** Who may call a route: anyone, any reader, a reader with exports and an admin, or a reader admin. */
export type Access = 'public' | 'reader' | 'export' | 'admin';

export interface Route {
	method: string;
	pattern: RegExp;
	access: Access;
	handler: (ctx: RouteContext) => Promise<void> | void;
}
