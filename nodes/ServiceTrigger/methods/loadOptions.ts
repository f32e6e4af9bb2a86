import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { listFromBody } from '../../shared/answerShape';
import { serviceRequest } from '../../shared/transport/serviceRequest';
import { eventTypeChoices } from '../delivery/events';

/**
 * Event types from the catalogue route; the named events of spec section 6 when the catalogue
 * cannot be reached, so the parameter stays usable while the Service is down or misconfigured.
 */
export async function getEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	let catalogue: unknown[] | undefined;
	try {
		const answer = await serviceRequest.call(
			this,
			{ method: 'GET', path: '/v1/reader/webhooks/catalogue' },
			{ maxAttempts: 2 },
		);
		catalogue = listFromBody(answer.body, 'event_type');
	} catch (error) {
		this.logger.warn(
			`Service Trigger: could not load the event catalogue (${(error as Error).message}); offering the event types named in the specification.`,
		);
	}
	return eventTypeChoices(catalogue).map(({ eventType, description }) => ({
		name: eventType,
		value: eventType,
		description,
	}));
}
