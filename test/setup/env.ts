import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core writes its instance config under N8N_USER_FOLDER: keep each test worker in a temporary one.
if (!process.env.N8N_USER_FOLDER?.includes('n8n-nodes-service-reader-test-')) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'n8n-nodes-service-reader-test-'));
}

// n8n-core logs every node error it sees; the tests assert on those errors themselves, so keep the
// output readable. Set N8N_LOG_LEVEL=debug to see n8n's log while debugging a test.
process.env.N8N_LOG_LEVEL ??= 'silent';
