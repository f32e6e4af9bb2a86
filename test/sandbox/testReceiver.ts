import type { IncomingHttpHeaders } from 'node:http';

import type { TlsMaterial } from '../tls/certificates';
import { listenHttps } from '../tls/httpsServer';

export interface ReceivedDelivery {
	headers: IncomingHttpHeaders;
	/** Raw body bytes, exactly as received. */
	body: Buffer;
	/** Receiver clock when the delivery arrived, in unix seconds. */
	receivedAt: number;
	/** Status the receiver answered. */
	answered: number;
}

export interface TestReceiver {
	url: string;
	received: ReceivedDelivery[];
	/** Status codes to answer, in order; the last one repeats. */
	answer(statuses: number[]): void;
	close(): Promise<void>;
}

/** An https webhook receiver for tests: records raw deliveries and answers scripted statuses. */
export async function startReceiver(tls: TlsMaterial, statuses: number[] = [200]): Promise<TestReceiver> {
	let script = statuses;
	const received: ReceivedDelivery[] = [];
	const https = await listenHttps(tls, (req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const answered = script[Math.min(received.length, script.length - 1)];
			received.push({ headers: req.headers, body: Buffer.concat(chunks), receivedAt: Math.floor(Date.now() / 1000), answered });
			res.writeHead(answered, { 'Content-Type': 'text/plain' }).end('ok');
		});
	});
	return {
		url: `${https.origin}/hooks/service`,
		received,
		answer(next) {
			script = next;
		},
		close: () => https.close(),
	};
}
