// ESLint for an n8n community package: eslint-plugin-n8n-nodes-base (community, credentials and
// nodes rule sets) and @n8n/eslint-plugin-community-nodes (recommended, the Cloud-eligible set).
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import jsoncParser from 'jsonc-eslint-parser';

const n8nBaseRules = (name) => n8nNodesBase.configs[name].rules;

export default [
	{
		ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**', 'gulpfile.js', 'jest.config.js', '**/*.mjs'],
	},
	{
		files: ['**/*.ts'],
		languageOptions: {
			parser: tsParser,
			parserOptions: { ecmaVersion: 'latest', sourceType: 'module' },
		},
	},
	{
		files: ['package.json'],
		languageOptions: { parser: jsoncParser },
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
		files: ['package.json', 'credentials/**/*.ts', 'nodes/**/*.ts'],
		...n8nCommunityNodesPlugin.configs.recommended,
	},
];
