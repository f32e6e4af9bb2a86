import { Container } from '@n8n/di';
import { Logger } from '@n8n/backend-common';

export interface LogLine {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	meta?: unknown;
}

/** Records what nodes log through `this.logger` (n8n-core's Logger from the DI container). */
export function captureLogs(): { lines: LogLine[]; restore(): void } {
	const original = Container.get(Logger);
	const lines: LogLine[] = [];
	const record = (level: LogLine['level']) => (message: string, meta?: unknown) => {
		lines.push({ level, message, meta });
	};
	const recorder = {
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
		scoped: () => recorder,
	};
	Container.set(Logger, recorder as unknown as Logger);
	return { lines, restore: () => Container.set(Logger, original) };
}
