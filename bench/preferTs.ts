/**
 * Under tsx, `import ... from './X.node'` resolves to the codex file `X.node.json` beside `X.node.ts`
 * (jest prefers .ts). Imported first by scripts that load the nodes' sources through test/harness.
 */
import Module from 'node:module';

const resolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = resolver._resolveFilename;
resolver._resolveFilename = function (request: string, ...rest: unknown[]) {
	if (request.startsWith('.') && request.endsWith('.node')) {
		try {
			return original.call(this, `${request}.ts`, ...rest);
		} catch {
			// Not a source file: resolved as asked.
		}
	}
	return original.call(this, request, ...rest);
};
