import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';

import type { TlsMaterial } from './certs';

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
	const sockets = new Set<Socket>();
	const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const answered = script[Math.min(received.length, script.length - 1)];
			received.push({ headers: req.headers, body: Buffer.concat(chunks), receivedAt: Math.floor(Date.now() / 1000), answered });
			res.writeHead(answered, { 'Content-Type': 'text/plain' }).end('ok');
		});
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return {
		url: `https://127.0.0.1:${port}/hooks/service`,
		received,
		answer(next) {
			script = next;
		},
		close: () => new Promise<void>((resolve) => {
			server.close(() => resolve());
			for (const socket of sockets) socket.destroy();
		}),
	};
}
