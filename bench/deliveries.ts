/**
 * The deliveries of item 3: signed as the sender signs them, with forged ones interleaved (one
 * after every `forgedEvery` valid ones), each kind of forgery in turn. One scheme for every peer
 * (t=…,v1=… HMAC-SHA256 of "t.body"); what differs is the header, the key and the event body.
 */
import { randomBytes } from 'node:crypto';

import { adversarialSignature, serviceEvent, serviceSignature } from './deliveryBody';

export type ForgeryKind = 'wrong secret' | 'body changed after signing' | 'stale timestamp' | 'no signature' | 'corrupted v1' | 'adversarial header';
const forgeries: ForgeryKind[] = ['wrong secret', 'body changed after signing', 'stale timestamp', 'no signature', 'corrupted v1'];

export interface Delivery {
	body: Buffer;
	/** Signed when called, as it is sent: a round can last longer than the 300 s a signature is valid. */
	headers: () => Record<string, string>;
	/** Undefined for a valid delivery. */
	forgery?: ForgeryKind;
}

/** How one receiver's deliveries are signed. */
export interface Signing {
	/** Lower-case header name: service-signature, stripe-signature. */
	header: string;
	/** The HMAC key bytes. */
	key: Buffer;
	/** The nth event body of a run. */
	event: (id: string, n: number) => Buffer;
}

/** The Service's own deliveries, keyed with `key`. */
export function serviceSigning(key: Buffer): Signing {
	return { header: 'service-signature', key, event: (id, n) => serviceEvent(`alt_${id}`, n) };
}

export function buildDeliveries(valid: number, forgedEvery: number, signing: Signing, label: string): Delivery[] {
	const { key } = signing;
	const otherKey = randomBytes(32);
	const deliveries: Delivery[] = [];
	const headers = (signature?: string): Record<string, string> => ({
		'content-type': 'application/json',
		...(signature ? { [signing.header]: signature } : {}),
	});
	let forged = 0;
	for (let n = 0; n < valid; n++) {
		const body = signing.event(`${label}_${n}`, n);
		deliveries.push({ body, headers: () => headers(serviceSignature(key, body)) });
		if ((n + 1) % forgedEvery !== 0) continue;
		const forgery = forgeries[forged++ % forgeries.length];
		const fake = signing.event(`${label}_forged_${n}`, n);
		switch (forgery) {
			case 'wrong secret':
				deliveries.push({ body: fake, headers: () => headers(serviceSignature(otherKey, fake)), forgery });
				break;
			case 'body changed after signing': {
				// The event's own id changed (alert_id or id, whichever comes first): still valid JSON.
				const changed = Buffer.from(fake.toString('utf8').replace(/"(alert_id|id)":"/, '"$1":"x'));
				deliveries.push({ body: changed, headers: () => headers(serviceSignature(key, fake)), forgery });
				break;
			}
			case 'stale timestamp':
				deliveries.push({ body: fake, headers: () => headers(serviceSignature(key, fake, Math.floor(Date.now() / 1000) - 600)), forgery });
				break;
			case 'no signature':
				deliveries.push({ body: fake, headers: () => headers(), forgery });
				break;
			case 'corrupted v1': {
				const corrupted = () => {
					const signature = serviceSignature(key, fake);
					return signature.slice(0, -1) + (signature.at(-1) === '0' ? '1' : '0');
				};
				deliveries.push({ body: fake, headers: () => headers(corrupted()), forgery });
				break;
			}
		}
	}
	return deliveries;
}

/** `count` forgeries signed with another key whose header is padded to 16,000 characters of separator runs (not in the rounds). */
export function adversarialDeliveries(count: number, signing: Signing, label: string): Delivery[] {
	const otherKey = randomBytes(32);
	return Array.from({ length: count }, (_, n) => {
		const body = signing.event(`${label}_${n}`, n);
		return {
			body,
			headers: () => ({ 'content-type': 'application/json', [signing.header]: adversarialSignature(serviceSignature(otherKey, body)) }),
			forgery: 'adversarial header' as const,
		};
	});
}
