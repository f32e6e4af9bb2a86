import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../n8n-install';

/** The example workflows users import from examples/, by short name. */
export const exampleFiles = {
	portfolio: 'portfolio-to-xlsx.json',
	invitations: 'invite-suppliers-from-csv.json',
	ledgerAlert: 'ledger-high-chat-alert.json',
	shareRevoked: 'share-revoked-mark-crm.json',
	supplierCheck: 'check-a-supplier.json',
	changesCrm: 'portfolio-changes-to-crm.json',
	changesSheet: 'portfolio-changes-to-sheet.json',
} as const;

export type ExampleName = keyof typeof exampleFiles;

/** Examples started by the Service Trigger (activated); the others run by hand. */
export const triggerExamples: readonly ExampleName[] = ['ledgerAlert', 'shareRevoked'];
export const manualExamples: readonly ExampleName[] = ['portfolio', 'invitations', 'supplierCheck'];
/** Examples started by the Service Changes Trigger (polling): test/e2e/changes-trigger.e2e.test.ts imports them itself. */
export const pollingExamples: readonly ExampleName[] = ['changesCrm', 'changesSheet'];

/** The sample file the invitation example reads. */
export const suppliersCsvPath = join(repoRoot, 'examples', 'suppliers.csv');

/**
 * The placeholders the example files carry, as a user sees them after importing: the credential
 * id (n8n asks for the credential), the Slack and CRM addresses, the CSV file's path, the company
 * picked from the list, and the Google spreadsheet and its credential.
 */
export const placeholders = {
	credentialId: 'REPLACE_WITH_YOUR_SERVICE_API_CREDENTIAL',
	chatUrl: 'https://hooks.slack.com/services/REPLACE/WITH/YOUR-INCOMING-WEBHOOK',
	crmUrl: 'https://crm.example.com',
	suppliersCsv: '/home/node/.n8n-files/suppliers.csv',
	companyKe: 'REPLACE_WITH_A_COMPANY_KE',
	spreadsheetId: 'REPLACE_WITH_YOUR_SPREADSHEET_ID',
	googleCredentialId: 'REPLACE_WITH_YOUR_GOOGLE_SHEETS_CREDENTIAL',
} as const;

export type ExampleValues = Record<keyof typeof placeholders, string>;

export interface ExampleWorkflow {
	id: string;
	name: string;
	nodes: Array<{ name: string; type: string; parameters: Record<string, unknown>; webhookId?: string }>;
	[key: string]: unknown;
}

/** The example file exactly as users get it. */
export function readExample(name: ExampleName): ExampleWorkflow {
	return JSON.parse(readFileSync(join(repoRoot, 'examples', exampleFiles[name]), 'utf8')) as ExampleWorkflow;
}

/**
 * The example with its placeholders replaced, as a user fills them in after importing, and an id
 * for `n8n import:workflow`. Fails when a placeholder is left, so a renamed one cannot go unnoticed.
 */
export function filledExample(name: ExampleName, id: string, values: ExampleValues): ExampleWorkflow {
	let text = JSON.stringify(readExample(name));
	for (const key of Object.keys(placeholders) as Array<keyof typeof placeholders>) {
		text = text.split(placeholders[key]).join(values[key]);
	}
	const left = /REPLACE|example\.com|\/home\/node/.exec(text);
	if (left) throw new Error(`Example ${exampleFiles[name]} still has a placeholder near "${text.slice(left.index - 40, left.index + 40)}"`);
	return { ...(JSON.parse(text) as ExampleWorkflow), id };
}
