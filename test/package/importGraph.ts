import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The package's imports as the code has them (relative imports of `nodes/` and `credentials/`, read
 * with TypeScript's parser), the rules they keep, and the folder picture docs/architecture.md shows.
 */
export const root = join(__dirname, '..', '..');

export type Graph = Map<string, string[]>;

function sources(folder: string, out: string[] = []): string[] {
	for (const name of readdirSync(folder)) {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) sources(path, out);
		else if (path.endsWith('.ts')) out.push(path);
	}
	return out;
}

export function importGraph(): Graph {
	const graph: Graph = new Map();
	for (const file of [...sources(join(root, 'nodes')), ...sources(join(root, 'credentials'))]) {
		const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
		const targets: string[] = [];
		for (const statement of source.statements) {
			if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
			const specifier = statement.moduleSpecifier;
			if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
			const base = resolve(dirname(file), specifier.text);
			const target = [`${base}.ts`, join(base, 'index.ts'), base].find((path) => existsSync(path) && statSync(path).isFile());
			if (target !== undefined) targets.push(relative(root, target));
		}
		graph.set(relative(root, file), targets);
	}
	return graph;
}

/** Circles of imports (strongly connected sets of two or more files), by Tarjan's algorithm. */
export function circles(graph: Graph): string[][] {
	let next = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (file: string): void => {
		index.set(file, next);
		low.set(file, next++);
		stack.push(file);
		onStack.add(file);
		for (const target of graph.get(file) ?? []) {
			if (!index.has(target)) {
				visit(target);
				low.set(file, Math.min(low.get(file)!, low.get(target)!));
			} else if (onStack.has(target)) {
				low.set(file, Math.min(low.get(file)!, index.get(target)!));
			}
		}
		if (low.get(file) !== index.get(file)) return;
		const circle: string[] = [];
		let member: string;
		do {
			member = stack.pop()!;
			onStack.delete(member);
			circle.push(member);
		} while (member !== file);
		if (circle.length > 1) found.push(circle.sort());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return found;
}

/** Every file a file reaches through its imports. */
export function reach(graph: Graph, file: string): Set<string> {
	const seen = new Set<string>();
	const todo = [...(graph.get(file) ?? [])];
	while (todo.length > 0) {
		const next = todo.pop()!;
		if (seen.has(next)) continue;
		seen.add(next);
		todo.push(...(graph.get(next) ?? []));
	}
	return seen;
}

const TRANSPORT = 'nodes/shared/transport/';
const nodeOf = (file: string) => (file.startsWith('nodes/Service') ? file.split('/')[1] : undefined);

/**
 * The rules docs/architecture.md states, one line per import that breaks one:
 * - `nodes/shared/` imports neither a node nor `credentials/`;
 * - a node imports no other node and not `credentials/` (credentials are named, never imported);
 * - `credentials/` imports only `nodes/shared/`;
 * - `transport/` imports only `transport/` and shared files that do not reach `transport/` (nothing above it).
 */
export function brokenRules(graph: Graph): string[] {
	const broken: string[] = [];
	for (const [file, targets] of graph) {
		for (const target of targets) {
			const arrow = `${file} -> ${target}`;
			if (file.startsWith('nodes/shared/') && !target.startsWith('nodes/shared/')) broken.push(`${arrow}: nodes/shared/ imports only nodes/shared/`);
			if (nodeOf(file) !== undefined && (target.startsWith('credentials/') || (nodeOf(target) !== undefined && nodeOf(target) !== nodeOf(file)))) {
				broken.push(`${arrow}: a node imports only itself and nodes/shared/`);
			}
			if (file.startsWith('credentials/') && !target.startsWith('credentials/') && !target.startsWith('nodes/shared/')) broken.push(`${arrow}: credentials/ imports only nodes/shared/`);
			if (file.startsWith(TRANSPORT) && !target.startsWith(TRANSPORT) && [...reach(graph, target), target].some((each) => each.startsWith(TRANSPORT))) {
				broken.push(`${arrow}: transport/ imports nothing that imports transport/`);
			}
		}
	}
	return broken;
}

/** The folder a file is drawn in: its own, but a Reader operation's folder is drawn as `actions/`. */
export function folderOf(file: string): string {
	const folder = dirname(file);
	const actions = 'nodes/ServiceReader/actions';
	return folder.startsWith(`${actions}/`) ? actions : folder;
}

/** The folders and their imports as a Mermaid flowchart (GitHub draws it), sorted so it is stable. */
export function folderPicture(graph: Graph): string {
	const arrows = new Set<string>();
	const folders = new Set<string>();
	for (const [file, targets] of graph) {
		folders.add(folderOf(file));
		for (const target of targets) if (folderOf(target) !== folderOf(file)) arrows.add(`${folderOf(file)} --> ${folderOf(target)}`);
	}
	const id = (folder: string) => folder.replace(/[^\w]/g, '_');
	const lines = ['```mermaid', 'flowchart LR'];
	for (const folder of [...folders].sort()) lines.push(`  ${id(folder)}["${folder}/"]`);
	for (const arrow of [...arrows].sort()) {
		const [from, to] = arrow.split(' --> ');
		lines.push(`  ${id(from)} --> ${id(to)}`);
	}
	lines.push('```');
	return lines.join('\n');
}

export const PICTURE_START = '<!-- folder picture: generated by `npm run architecture`, checked by test/package/imports.test.ts -->';
export const PICTURE_END = '<!-- end of folder picture -->';

/** docs/architecture.md with its picture drawn afresh from the code. */
export function withPicture(page: string, picture: string): string {
	const start = page.indexOf(PICTURE_START);
	const end = page.indexOf(PICTURE_END);
	if (start < 0 || end < start) throw new Error(`docs/architecture.md has no picture markers (${PICTURE_START} ... ${PICTURE_END})`);
	return `${page.slice(0, start + PICTURE_START.length)}\n${picture}\n${page.slice(end)}`;
}
