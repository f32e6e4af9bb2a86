/**
 * One poll of the node: the chosen export read whole, page by page, against the state the last
 * complete poll left in the workflow's static data (readPages.ts `pollExport`). Only a complete
 * reading emits changes or moves the state on; anything less throws, naming why, and keeps the
 * earlier state (docs/changes-trigger.md).
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CsvPages } from '../shared/csv';
import type { ExpiryWindow, WindowColumn } from '../shared/expiryWindow';
import { outsideWindow, outsideWindowWords, windowColumn } from '../shared/expiryWindow';
import { pageFailed } from '../shared/pageErrors';
import { exportPaging, pageFetcher } from '../shared/transport/pageFetch';
import { getServiceSettings } from '../shared/transport/serviceRequest';
import type { ServiceSettings } from '../shared/transport/settings';
import type { Change, ChangeKind, ExportName } from './keys';
import { CHANGE_KINDS, ChangesError, EXPORT_NAMES } from './keys';
import type { PollLimits } from './limits';
import { DEFAULT_MAX_POLL_SECONDS, DEFAULT_MAX_ROWS, DEFAULT_MAX_STATE_MIB, MIB } from './limits';
import type { ExportSource, PollOptions } from './readPages';
import { pollExport, sampleExport } from './readPages';

/** The one key of the node's static data. */
export const STATE_KEY = 'changes';
/** Rows the editor's Fetch Test Event shows. */
export const SAMPLE_ROWS = 3;

const KEPT = 'Nothing was emitted and the state of the last complete poll is kept, so no change is lost or made up: the next poll reads the export again.';

function readParameters(this: IPollFunctions): PollOptions {
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
	if (!Array.isArray(given)) {
		throw new NodeOperationError(this.getNode(), `Changes is ${JSON.stringify(given)}, not a list of kinds of change`, {
			description: 'Choose from Added, Changed and Removed (an expression must give a list such as ["added", "removed"]).',
		});
	}
	const changes = new Set<ChangeKind>();
	for (const kind of given) {
		if (!CHANGE_KINDS.includes(kind as ChangeKind)) {
			throw new NodeOperationError(this.getNode(), `Changes has ${JSON.stringify(kind)}, which is not a kind of change`, {
				description: 'Choose from Added, Changed and Removed.',
			});
		}
		changes.add(kind as ChangeKind);
	}
	const keyColumn = this.getNodeParameter('keyColumn', '') as unknown;
	if (typeof keyColumn !== 'string') {
		throw new NodeOperationError(this.getNode(), `Key Column is ${JSON.stringify(keyColumn)}, not a column name`, {
			description: 'Enter the name of the column that tells the rows apart (for the portfolio, the one holding the KE), or leave it empty to detect it.',
		});
	}
	return { export: name, window, keyColumn, changes, emitCurrentRows: this.getNodeParameter('emitCurrentRows', false) === true, limits: readLimits.call(this) };
}

/** The Options' bounds per poll, each a positive number or refused naming it. */
function readLimits(this: IPollFunctions): PollLimits {
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const positive = (name: string, label: string, fallback: number): number => {
		const value = options[name] ?? fallback;
		if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
			throw new NodeOperationError(this.getNode(), `${label} is ${JSON.stringify(value)}, not a positive number`, {
				description: `Set ${label} in the trigger's Options to a number above 0, or remove it to use ${fallback.toLocaleString('en-US')}.`,
			});
		}
		return value;
	};
	return {
		maxRows: positive('maxRows', 'Max Rows', DEFAULT_MAX_ROWS),
		maxPollMs: positive('maxPollTime', 'Max Poll Time (Seconds)', DEFAULT_MAX_POLL_SECONDS) * 1000,
		maxStateBytes: positive('maxStateSize', 'Max State Size (MiB)', DEFAULT_MAX_STATE_MIB) * MIB,
		now: () => Date.now(),
	};
}

/** The export's pages through the credential's paging and CSV settings; a failure says the state is kept. */
function exportSource(this: IPollFunctions, options: PollOptions, settings: ServiceSettings): ExportSource {
	const csvExport = options.export !== 'decisions' && options.export !== 'statements';
	// The CSV exports' format is sent as the Reader sends it; decisions and statements are JSON lists with no query shown.
	const query: Record<string, string> = csvExport ? { format: 'csv' } : {};
	if (options.window !== undefined) query.window = options.window;
	return {
		fetchPage: pageFetcher.call(this, options.export, { settings }, csvExport ? 'buffer' : 'json'),
		paging: exportPaging(settings, query),
		csv: csvExport ? new CsvPages({ delimiter: settings.csvDelimiter, headerRepeat: settings.csvHeaderRepeat }) : undefined,
		redact: settings.redact,
		check: windowCheck.call(this, options, settings),
		failed: (error, request, rowsRead) =>
			error instanceof ChangesError
				? new NodeOperationError(this.getNode(), error.message, { description: KEPT })
				: pageFailed.call(this, error, { spec: { label: `${options.export} export` }, outcome: KEPT }, request, rowsRead),
	};
}

/** Expiries with a window: a row outside it fails the poll naming the setting (a Service ignoring the parameter sends every row). */
function windowCheck(this: IPollFunctions, options: PollOptions, settings: ServiceSettings): ExportSource['check'] {
	if (options.window === undefined) return undefined;
	const window: ExpiryWindow = { days: Number(options.window), parameter: settings.requestNames.get('export.window') ?? 'window', now: Date.now() };
	let column: WindowColumn | undefined;
	return (rows, before) => {
		rows.forEach((row, index) => {
			column ??= windowColumn(Object.keys(row), row);
			const why = column && outsideWindow(row, column, window);
			if (!why) return;
			const words = outsideWindowWords(before + index + 1, why, window);
			throw new NodeOperationError(this.getNode(), words.message, { description: `${words.description} ${KEPT}` });
		});
	};
}

function itemOf(name: ExportName, change: Change): INodeExecutionData {
	const json: IDataObject = { change: change.change, export: name, key: change.key, row: change.row as IDataObject };
	if (change.previous !== undefined) json.previous = change.previous as IDataObject;
	return { json };
}

/** n8n's poll: the changes since the last complete poll, or null when there are none. */
export async function pollChanges(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const options = readParameters.call(this);
	const settings = await getServiceSettings.call(this);
	const source = exportSource.call(this, options, settings);
	// Fetch Test Event: a sample of the current rows; the state is neither read nor written.
	if (this.getMode() === 'manual') {
		const sample = await sampleExport(options, source, SAMPLE_ROWS);
		return sample.length === 0 ? null : [sample.map((change) => itemOf(options.export, change))];
	}
	const staticData = this.getWorkflowStaticData('node');
	const { changes, stored } = await pollExport(staticData[STATE_KEY], options, source);
	// Only here, after the last page was read: the state moves on to this complete reading.
	staticData[STATE_KEY] = stored as unknown as IDataObject;
	return changes.length === 0 ? null : [changes.map((change) => itemOf(options.export, change))];
}
