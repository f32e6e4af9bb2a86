/**
 * Check Settings: what a Service's answers to a few read-only GETs say about the credential's
 * Advanced Settings. The same findings feed the credential's Test (one message) and the Service
 * Reader's Service > Check Settings operation (one item per finding). Pure: no n8n types here.
 */

/** Credential fields a probe may set for one request (e.g. another Send Token As, to confirm a challenge). */
export type FieldOverrides = Readonly<Record<string, string>>;

export interface ProbeRequest {
	/** A path under the Base URL (`/v1/reader/...`), or, for the Base URL finding and the API document, an absolute https URL on the Base URL's origin. */
	path: string;
	/** Query parameters in order; names and values are sent as given (percent-encoded once by the transport). */
	query?: ReadonlyArray<readonly [string, string]>;
	/** Credential fields changed for this request only (Send Token As, Token Header Name, Token Scheme, Base URL). */
	fields?: FieldOverrides;
	/** Request headers beside the credential's (a cursor sent back in a header). */
	headers?: Readonly<Record<string, string>>;
	/** The longest this request may take: the time the check has left, at most PROBE_LIMITS.requestMs (set by the engine). */
	timeoutMs?: number;
}

export interface ProbeAnswer {
	status: number;
	/** Header names in lower case; a repeated header joined by ", ". */
	headers: ReadonlyMap<string, string>;
	/** At most PROBE_LIMITS.bodyBytes of the body; `truncated` when there was more. */
	body: Uint8Array;
	truncated: boolean;
}

/** One GET, with the credential applied by its own authenticate (https, Base URL origin, no redirects). Never throws for an HTTP status; throws for a network failure or the deadline. */
export type Probe = (request: ProbeRequest) => Promise<ProbeAnswer>;

/** Bounds of one check, documented in docs/service-choices.md and token-and-limits.md. */
export const PROBE_LIMITS = { requests: 40, totalMs: 15_000, requestMs: 5_000, bodyBytes: 256 * 1024 } as const;

export type Verdict =
	/** The credential's value works (or its Detect setting will find it). */
	| 'ok'
	/** The Service needs another value: `found` is it. */
	| 'change'
	/** The answers could not tell (said in `evidence`); nothing is proposed. */
	| 'unknown'
	/** Only writing would tell (webhook creation, the import): said, never tried. */
	| 'not_checked'
	/** Seen and reported for the user's information; no setting to change. */
	| 'info';

/** One credential field a finding is about, with the value to store (for `change`) or found. */
export interface FindingSetting {
	/** The credential field as stored (`cursorParameter`); `requestNames` for a Request Names row. */
	field: string;
	/** The label the credential dialog shows (`Cursor Parameter`, `Request Names > Exports > JSON Format Parameter`). */
	label: string;
	value: string | number | boolean;
	/** For `requestNames`: the row's Sent For (`export.window`); `value` is its Service Name. */
	concept?: string;
	/** For an options field: the option's name as the dialog shows it (`Another Header`). */
	shown?: string;
}

export interface Finding {
	/** What was checked, in the user's words: "Sign-in", "Base URL", "Cursor Parameter", "CSV Delimiter"... */
	topic: string;
	/** The credential field(s) the finding is about: for `change` the value to store (applyFindings), for `ok` and `unknown` the value now, for `info` the value found (Page Size Parameter); empty where no setting applies. */
	settings: ReadonlyArray<FindingSetting>;
	verdict: Verdict;
	/** The value found, as the user would type it (undefined when unknown). */
	found?: string;
	/** The credential's value now. */
	current?: string;
	/** What was asked and what the Service answered, in one or two sentences; never the token. */
	evidence: string;
}

/** The credential as the check sees it: Base URL and the Advanced Settings fields (never the token). */
export interface CheckedCredential {
	baseUrl: string;
	/** As settings/advancedSettings.ts `advancedSettings()` reads them (nothing while the switch is off), without `accessToken`. */
	advanced: Readonly<Record<string, unknown>>;
}
