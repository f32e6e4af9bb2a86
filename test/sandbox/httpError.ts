/**
 * An error answered as `{"error": {"code", "message"}}` with the given status. Its own module: requestDialect.ts
 * needs it while dialect.ts (which http.ts imports) is still loading, and through http.ts it read half-made values.
 */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}
