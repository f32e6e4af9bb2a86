import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface LocalHttpsServer {
	server: Server;
	port: number;
	/** https://127.0.0.1:<port> */
	origin: string;
	/** Stops listening and ends every open connection, kept-alive and mid-handshake ones too. */
	close(): Promise<void>;
}

/** An https server on 127.0.0.1 (an ephemeral port unless `port` is given) with this key and certificate. */
export async function listenHttps(
	tls: { key: string; cert: string },
	handler: (req: IncomingMessage, res: ServerResponse) => void,
	port = 0,
): Promise<LocalHttpsServer> {
	const server = createServer({ key: tls.key, cert: tls.cert }, handler);
	const sockets = new Set<Socket>();
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const bound = (server.address() as AddressInfo).port;
	let closing: Promise<void> | undefined;
	return {
		server,
		port: bound,
		origin: `https://127.0.0.1:${bound}`,
		close() {
			closing ??= new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
				for (const socket of sockets) socket.destroy();
			});
			return closing;
		},
	};
}
