import { createServer, type Server } from 'node:net';

/**
 * Free TCP ports on 127.0.0.1, all distinct: every listener stays open until all ports are known,
 * so n8n's HTTP port and its task broker port can never be the same one.
 */
export async function freePorts(count: number): Promise<number[]> {
	const servers: Server[] = [];
	try {
		const ports: number[] = [];
		for (let i = 0; i < count; i++) {
			const server = createServer();
			servers.push(server);
			await new Promise<void>((resolve, reject) => {
				server.once('error', reject);
				server.listen(0, '127.0.0.1', resolve);
			});
			const address = server.address();
			if (address === null || typeof address === 'string') throw new Error('no TCP address');
			ports.push(address.port);
		}
		return ports;
	} finally {
		await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
	}
}

export async function freePort(): Promise<number> {
	const [port] = await freePorts(1);
	return port;
}
