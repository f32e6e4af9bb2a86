/** @type {import('jest').Config} */
const shared = {
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
	setupFiles: ['<rootDir>/test/setup/env.ts'],
};

module.exports = {
	projects: [
		{
			// Unit tests, the sandbox's own tests, the package checks and the in-process node tests.
			...shared,
			displayName: 'in-process',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			testPathIgnorePatterns: ['\\.e2e\\.test\\.ts$', '\\.browser\\.test\\.ts$'],
			slowTestThreshold: 30,
		},
		{
			// A real n8n per test file: installed once by globalSetup, run one file at a time (see package.json).
			...shared,
			displayName: 'e2e',
			roots: ['<rootDir>/test/e2e'],
			testMatch: ['**/*.e2e.test.ts'],
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
			slowTestThreshold: 120,
		},
		{
			// n8n's editor in Debian's chromium (scripts/install-chromium.sh), driven by playwright-core.
			...shared,
			displayName: 'browser',
			roots: ['<rootDir>/test/browser'],
			testMatch: ['**/*.browser.test.ts'],
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
			slowTestThreshold: 120,
		},
	],
	testTimeout: 120000,
	maxWorkers: 2,
};
