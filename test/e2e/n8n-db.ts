import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { n8nInstall } from './n8n-install';

const run = promisify(execFile);

/**
 * Runs SQL on the SQLite database of the n8n whose user folder this is, with the sqlite3 module
 * n8n itself uses: what an operator's restore or hand edit does. Call it while that n8n is stopped.
 */
export async function runSql(userFolder: string, sql: string): Promise<void> {
	const install = await n8nInstall();
	const script = [
		`const sqlite3 = require(require.resolve('sqlite3', { paths: [${JSON.stringify(install.packageDir)}] }));`,
		'const db = new sqlite3.Database(process.argv[1]);',
		'db.exec(process.argv[2], (error) => db.close(() => { if (error) { console.error(error.message); process.exit(1); } }));',
	].join('\n');
	await run(install.node, ['-e', script, join(userFolder, '.n8n', 'database.sqlite'), sql], { timeout: 30_000 });
}
