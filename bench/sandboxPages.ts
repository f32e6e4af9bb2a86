/** Small client calls to the sandbox the benchmark needs outside the measured work. */
import { httpsRequest } from '../test/e2e/https-request';

/** Fetches the first portfolio page once: the sandbox builds its row cache on the first request, outside any timing. */
export async function warmPortfolio(baseUrl: string, token: string, ca: string): Promise<void> {
	const response = await httpsRequest(`${baseUrl}/v1/reader/exports/portfolio?format=csv`, {
		ca,
		headers: { authorization: `Bearer ${token}` },
		timeoutMs: 120_000,
	});
	if (response.status !== 200) throw new Error(`Warming the sandbox: ${response.status} ${response.body.slice(0, 200)}`);
}
