import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { CATALOGUE, wholeList } from '../../shared/transport/pageFetch';
import { getServiceSettings } from '../../shared/transport/serviceRequest';
import { eventTypeChoices } from '../delivery/events';

/**
 * Event types from the catalogue route, every page; the named events of spec section 6 when the
 * catalogue cannot be read at all (its first page fails), so the parameter stays usable while the
 * Service is down or misconfigured. A later page that fails is an error naming it, never a short list.
 */
export async function getEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	let firstPageRead = false;
	const read = await getServiceSettings
		.call(this)
		.then((settings) => wholeList.call(this, CATALOGUE, { settings, maxAttempts: 2, onPage: () => (firstPageRead = true) }))
		.then((entries) => ({ entries }), (error: Error) => ({ error }));
	if ('error' in read && firstPageRead) throw read.error;
	if ('error' in read) {
		this.logger.warn(
			`Service Trigger: could not load the event catalogue (${read.error.message}); offering the event types named in the specification.`,
		);
	}
	const catalogue = 'entries' in read ? read.entries : undefined;
	return eventTypeChoices(catalogue).map(({ eventType, description }) => ({
		name: eventType,
		value: eventType,
		description,
	}));
}
