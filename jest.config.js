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
			// The node suites again, against a Service that chose differently wherever the spec says "not shown".
			...shared,
			displayName: 'in-process-alt',
			roots: ['<rootDir>/test/nodes'],
			testMatch: ['**/*.test.ts'],
			// dialect.test.ts names the alt dialect itself; dialects.property.test.ts and pickerDialects.property.test.ts draw their own.
			testPathIgnorePatterns: ['\\.e2e\\.test\\.ts$', '/dialect\\.test\\.ts$', '/(dialects|pickerDialects)\\.property\\.test\\.ts$'],
			setupFiles: [...shared.setupFiles, '<rootDir>/test/setup/altDialect.ts'],
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
			// The example workflows once more, in a real n8n, against the sandbox's alt dialect.
			...shared,
			displayName: 'e2e-alt',
			roots: ['<rootDir>/test/e2e'],
			testMatch: ['**/examples-*.e2e.test.ts'],
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
			setupFiles: [...shared.setupFiles, '<rootDir>/test/setup/altDialect.ts'],
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
