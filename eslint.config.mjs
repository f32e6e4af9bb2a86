// ESLint for an n8n community package: eslint-plugin-n8n-nodes-base (community, credentials and
// nodes rule sets) and @n8n/eslint-plugin-community-nodes (recommended, the Cloud-eligible set), on
// the files n8n's community-package scan lints in a package's source (package.json and
// nodes/credentials .ts/.json; see scripts/scan.mjs, which runs the scan itself).
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import regexpPlugin from 'eslint-plugin-regexp';

const n8nBaseRules = (name) => n8nNodesBase.configs[name].rules;

export default [
	{
		ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**', 'gulpfile.js', 'jest.config.js', '**/*.mjs'],
	},
	{
		// JSON too: the package.json rules of both plugins look for the top-level ObjectExpression that
		// @typescript-eslint/parser produces for a JSON file (the scan parses JSON the same way). With a
		// JSON parser such as jsonc-eslint-parser (JSONObjectExpression nodes) they never fire.
		files: ['**/*.ts', '**/*.json'],
		languageOptions: {
			parser: tsParser,
			parserOptions: { ecmaVersion: 'latest', sourceType: 'module' },
		},
	},
	{
		files: ['package.json'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nBaseRules('community'),
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nBaseRules('credentials'),
			// Applies to n8n's own repository only (its docs slugs); community credentials link a full URL.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nBaseRules('nodes'),
			// These two want the string 'main'; @n8n/community-nodes (node-connection-type-literal) wants NodeConnectionTypes.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['package.json', 'credentials/**/*.{ts,json}', 'nodes/**/*.{ts,json}'],
		...n8nCommunityNodesPlugin.configs.recommended,
		// The scan adds no-console to the recommended set.
		rules: { ...n8nCommunityNodesPlugin.configs.recommended.rules, 'no-console': 'error' },
	},
	{
		// No regular expression whose time grows faster than its input (issue 31): senders control the text.
		files: ['credentials/**/*.ts', 'nodes/**/*.ts'],
		plugins: { regexp: regexpPlugin },
		rules: {
			'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
			'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false, ignorePartial: false }],
			'regexp/no-misleading-capturing-group': 'error',
		},
	},
];
