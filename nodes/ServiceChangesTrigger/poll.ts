/**
 * One poll: the chosen export read whole, page by page, against the state the last complete poll
 * left in the workflow's static data. Only a complete reading emits changes or moves the state on;
 * anything less throws, naming why, and keeps the earlier state (docs/changes-trigger.md).
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CsvPages } from '../shared/csv';
import { pageRows } from '../shared/exportRows';
import { pageFailed } from '../shared/pageErrors';
import type { PageRequest } from '../shared/paging';
import { cursorPages } from '../shared/paging';
import { exportPaging, pageFetcher } from '../shared/transport/pageFetch';
import { getServiceSettings } from '../shared/transport/serviceRequest';
import type { ServiceSettings } from '../shared/transport/settings';
import type { Change, ChangeKind, ExportName, Row } from './changes';
import { CHANGE_KINDS, ChangesError, EXPORT_NAMES, ExportReading, restoreState, storeState } from './changes';

/** The one key of the node's static data. */
export const STATE_KEY = 'changes';
/** Rows the editor's Fetch Test Event shows. */
export const SAMPLE_ROWS = 3;

const KEPT = 'Nothing was emitted and the state of the last complete poll is kept, so no change is lost or made up: the next poll reads the export again.';

export interface ChangesParameters {
	export: ExportName;
	/** Expiries only: 30, 60 or 90. */
	window: string | undefined;
	changes: ReadonlySet<ChangeKind>;
	emitCurrentRows: boolean;
}

function readParameters(this: IPollFunctions): ChangesParameters {
	const name = this.getNodeParameter('export', 'portfolio') as ExportName;
	if (!EXPORT_NAMES.includes(name)) {
		throw new NodeOperationError(this.getNode(), `Export ${JSON.stringify(name)} is not one the node watches`, {
			description: `Choose one of ${EXPORT_NAMES.join(', ')}.`,
		});
	}
	let window: string | undefined;
	if (name === 'expiries') {
		window = String(this.getNodeParameter('window', '30'));
		if (!['30', '60', '90'].includes(window)) {
			throw new NodeOperationError(this.getNode(), `Window ${JSON.stringify(window)} is not usable`, { description: 'Choose 30, 60 or 90 days.' });
		}
	}
	const given = this.getNodeParameter('changes', [...CHANGE_KINDS]) as unknown;
	const changes = new Set<ChangeKind>();
	for (const kind of Array.isArray(given) ? given : []) {
		if (!CHANGE_KINDS.includes(kind as ChangeKind)) {
			throw new NodeOperationError(this.getNode(), `Changes has ${JSON.stringify(kind)}, which is not a kind of change`, {
				description: 'Choose from Added, Changed and Removed.',
			});
		}
		changes.add(kind as ChangeKind);
	}
	return { export: name, window, changes, emitCurrentRows: this.getNodeParameter('emitCurrentRows', false) === true };
}

/** The rows of the export, page by page, to `add`; `maxPages` stops early (the sample) without an error. */
async function readExport(
	this: IPollFunctions,
	parameters: ChangesParameters,
	settings: ServiceSettings,
	add: (rows: Row[], header: string[] | undefined) => void,
	firstPageOnly = false,
): Promise<void> {
	const csvExport = parameters.export !== 'decisions' && parameters.export !== 'statements';
	const query: Record<string, string> = csvExport ? { format: 'csv' } : {};
	if (parameters.window !== undefined) query.window = parameters.window;
	const label = `${parameters.export} export`;
	let current: PageRequest | undefined;
	let rowsRead = 0;
	const fetchPage = pageFetcher.call(this, parameters.export, { settings }, csvExport ? 'buffer' : 'json', (request) => {
		current = request;
	});
	const csv = csvExport ? new CsvPages({ delimiter: settings.csvDelimiter, headerRepeat: settings.csvHeaderRepeat }) : undefined;
	let failure: Error | undefined;
	const fail = (error: unknown, request: PageRequest | undefined) =>
		(failure = error instanceof ChangesError
			? new NodeOperationError(this.getNode(), error.message, { description: KEPT })
			: pageFailed.call(this, error, { spec: { label }, outcome: KEPT }, request, rowsRead));
	try {
		for await (const page of cursorPages(fetchPage, exportPaging(settings, query), { prefetch: !firstPageOnly })) {
			try {
				const rows = pageRows(page.content, csv, settings).map(asRow);
				add(rows, csv?.header);
				rowsRead += rows.length;
			} catch (error) {
				throw fail(error, page.request);
			}
			if (firstPageOnly) break;
		}
	} catch (error) {
		throw error === failure ? error : fail(error, current);
	}
}

function asRow(row: unknown): Row {
	return row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as Row) : { value: row };
}

function itemOf(name: ExportName, change: Change): INodeExecutionData {
	const json: IDataObject = { change: change.change, export: name, key: change.key, row: change.row as IDataObject };
	if (change.previous !== undefined) json.previous = change.previous as IDataObject;
	return { json };
}

/** n8n's poll: the changes since the last complete poll, or null when there are none. */
export async function pollChanges(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const parameters = readParameters.call(this);
	const settings = await getServiceSettings.call(this);
	if (this.getMode() === 'manual') return await sample.call(this, parameters, settings);

	const staticData = this.getWorkflowStaticData('node');
	const earlier = restoreState(staticData[STATE_KEY], parameters.export, parameters.window);
	// The first poll is the baseline: it emits the current rows only when asked to.
	const emit: ReadonlySet<ChangeKind> = earlier !== undefined ? parameters.changes : parameters.emitCurrentRows ? new Set(['added']) : new Set();
	const reading = new ExportReading(parameters.export, parameters.window, earlier, emit);
	await readExport.call(this, parameters, settings, (rows, header) => reading.add(rows, header));
	const { changes, state } = reading.finish();
	// Only here, after the last page: the state moves on to this complete reading.
	staticData[STATE_KEY] = storeState(state) as unknown as IDataObject;
	return changes.length === 0 ? null : [changes.map((change) => itemOf(parameters.export, change))];
}

/** Fetch Test Event: the first rows of the export's first page as `added`, the state left as it is. */
async function sample(this: IPollFunctions, parameters: ChangesParameters, settings: ServiceSettings): Promise<INodeExecutionData[][] | null> {
	const reading = new ExportReading(parameters.export, parameters.window, undefined, new Set(['added']));
	await readExport.call(this, parameters, settings, (rows, header) => reading.add(rows, header), true);
	const changes = reading.finish().changes.slice(0, SAMPLE_ROWS);
	return changes.length === 0 ? null : [changes.map((change) => itemOf(parameters.export, change))];
}
