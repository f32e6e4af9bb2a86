/**
 * The deliveries of item 3: signed as the Service signs them, with forged ones interleaved (one
 * after every `forgedEvery` valid ones), each kind of forgery in turn.
 */
import { randomBytes } from 'node:crypto';

import { serviceEvent, serviceSignature } from './deliveryBody';

export type ForgeryKind = 'wrong secret' | 'body changed after signing' | 'stale timestamp' | 'no signature' | 'corrupted v1';
const forgeries: ForgeryKind[] = ['wrong secret', 'body changed after signing', 'stale timestamp', 'no signature', 'corrupted v1'];

export interface Delivery {
	body: Buffer;
	headers: Record<string, string>;
	/** Undefined for a valid delivery. */
	forgery?: ForgeryKind;
}

export function buildDeliveries(valid: number, forgedEvery: number, key: Buffer, label: string): Delivery[] {
	const otherKey = randomBytes(32);
	const deliveries: Delivery[] = [];
	const headers = (signature?: string): Record<string, string> => ({
		'content-type': 'application/json',
		...(signature ? { 'service-signature': signature } : {}),
	});
	let forged = 0;
	for (let n = 0; n < valid; n++) {
		const body = serviceEvent(`alt_${label}_${n}`, n);
		deliveries.push({ body, headers: headers(serviceSignature(key, body)) });
		if ((n + 1) % forgedEvery !== 0) continue;
		const forgery = forgeries[forged++ % forgeries.length];
		const fake = serviceEvent(`alt_${label}_forged_${n}`, n);
		const now = Math.floor(Date.now() / 1000);
		switch (forgery) {
			case 'wrong secret':
				deliveries.push({ body: fake, headers: headers(serviceSignature(otherKey, fake)), forgery });
				break;
			case 'body changed after signing': {
				const changed = Buffer.from(fake.toString('utf8').replace('"alert_id":"', '"alert_id":"x'));
				deliveries.push({ body: changed, headers: headers(serviceSignature(key, fake)), forgery });
				break;
			}
			case 'stale timestamp':
				deliveries.push({ body: fake, headers: headers(serviceSignature(key, fake, now - 600)), forgery });
				break;
			case 'no signature':
				deliveries.push({ body: fake, headers: headers(), forgery });
				break;
			case 'corrupted v1': {
				const signature = serviceSignature(key, fake);
				const last = signature.at(-1) === '0' ? '1' : '0';
				deliveries.push({ body: fake, headers: headers(signature.slice(0, -1) + last), forgery });
				break;
			}
		}
	}
	return deliveries;
}
