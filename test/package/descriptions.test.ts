import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

import { importGraph, root } from './importGraph';

// What the editor shows under a field or an error stays short enough to read there; the detail goes
// to docs/, linked. Every `description` and `hint` written in nodes/ and credentials/ (a field's,
// an option's, an error's), its literal text counted (what a template fills in is not).
const LIMIT = 300;

function literalLength(node: ts.Node): number | undefined {
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text.length;
	if (ts.isTemplateExpression(node)) return node.head.text.length + node.templateSpans.reduce((sum, span) => sum + span.literal.text.length, 0);
	if (ts.isParenthesizedExpression(node)) return literalLength(node.expression);
	if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
		return (literalLength(node.left) ?? 0) + (literalLength(node.right) ?? 0);
	}
	return undefined;
}

function longTexts(file: string): string[] {
	const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
	const long: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && ['description', 'hint'].includes(node.name.text)) {
			const length = literalLength(node.initializer);
			const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
			if (length !== undefined && length >= LIMIT) long.push(`${file}:${line} ${node.name.text}: ${length} characters`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return long;
}

test(`every description and hint in nodes/ and credentials/ is under ${LIMIT} characters`, () => {
	const files = [...importGraph().keys()];
	expect(files.length).toBeGreaterThan(100);
	expect(files.flatMap(longTexts)).toEqual([]);
});
