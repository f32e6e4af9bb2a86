import { httpsRequest, type HttpsResponse } from './https-request';

export interface OwnerAccount {
	email: string;
	password: string;
}

interface Endpoint {
	/** https://localhost:<port> */
	url: string;
	ca: string;
}

function authCookie(response: HttpsResponse, what: string): string {
	const cookies = response.headers['set-cookie'] ?? [];
	const cookie = cookies.map((line) => line.split(';')[0]).find((pair) => pair.startsWith('n8n-auth='));
	if (response.status !== 200 || !cookie) {
		throw new Error(`${what} failed: ${response.status} ${response.body.slice(0, 500)}`);
	}
	return cookie;
}

/**
 * Creates the instance owner on a fresh n8n (the REST route the setup screen uses; it answers
 * without a session only while no owner exists) and returns the session cookie `n8n-auth=…`.
 */
export async function setupOwner(n8n: Endpoint, owner: OwnerAccount): Promise<string> {
	const response = await httpsRequest(`${n8n.url}/rest/owner/setup`, {
		method: 'POST',
		ca: n8n.ca,
		body: { email: owner.email, password: owner.password, firstName: 'E2E', lastName: 'Owner' },
	});
	return authCookie(response, 'Owner setup');
}

/** Signs the owner in (after a restart) and returns the session cookie. */
export async function login(n8n: Endpoint, owner: OwnerAccount): Promise<string> {
	const response = await httpsRequest(`${n8n.url}/rest/login`, {
		method: 'POST',
		ca: n8n.ca,
		body: { emailOrLdapLoginId: owner.email, password: owner.password },
	});
	return authCookie(response, 'Login');
}

/** A public API key (X-N8N-API-KEY) with every scope the owner may grant, never expiring. */
export async function createApiKey(n8n: Endpoint, cookie: string): Promise<string> {
	const scopes = await httpsRequest(`${n8n.url}/rest/api-keys/scopes`, { ca: n8n.ca, headers: { cookie } });
	if (scopes.status !== 200) throw new Error(`API key scopes: ${scopes.status} ${scopes.body.slice(0, 500)}`);
	const created = await httpsRequest(`${n8n.url}/rest/api-keys`, {
		method: 'POST',
		ca: n8n.ca,
		headers: { cookie },
		body: { label: 'e2e', scopes: scopes.json<{ data: string[] }>().data, expiresAt: null },
	});
	if (created.status !== 200) throw new Error(`API key creation: ${created.status} ${created.body.slice(0, 500)}`);
	return created.json<{ data: { rawApiKey: string } }>().data.rawApiKey;
}
