import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers } from 'n8n-workflow';
import { Credentials } from 'n8n-core';

/**
 * Applies credentials the way n8n's own CredentialsHelper does (packages/cli/src/credentials-helper.ts):
 * defaults of the credential type are filled in, and a generic `authenticate` block is resolved as an
 * expression with `$credentials` and merged into the request. Only storage differs: credentials are
 * held in memory by type name instead of in a database.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	/** Credential reads (getDecrypted) in this process, by mode: what a node's getCredentials costs n8n. */
	static readonly reads = new Map<string, number>();

	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly credentialsByType: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(type: string): string[] {
		return [...(this.credentialTypes[type]?.extends ?? [])];
	}

	getCredentialsProperties(type: string) {
		return this.credentialType(type).properties;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialType(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [outerKey, values] of Object.entries(authenticate.properties)) {
				target[outerKey] ??= {};
				for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
					const resolvedKey = this.resolve(key, credentials, workflow, node);
					target[outerKey][resolvedKey] = this.resolve(value as string, credentials, workflow, node);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		return new Credentials({ id: nodeCredentials.id ?? null, name: nodeCredentials.name }, type, '');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode?: string,
	): Promise<ICredentialDataDecryptedObject> {
		TestCredentialsHelper.reads.set(mode ?? '', (TestCredentialsHelper.reads.get(mode ?? '') ?? 0) + 1);
		const stored = this.credentialsByType[type];
		if (stored === undefined) throw new Error(`No test credentials of type "${type}"`);
		// n8n fills in the credential type's defaults before a node sees the data.
		const withDefaults = NodeHelpers.getNodeParameters(
			this.credentialType(type).properties,
			structuredClone(stored) as INodeParameters,
			true,
			false,
			null,
			null,
		);
		// An OAuth2 credential also holds its parent type's fields (Client ID, Client Secret) and the token n8n stored.
		const inherited = this.credentialType(type).extends?.length ? structuredClone(stored) : {};
		return { ...inherited, ...(withDefaults ?? {}) } as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {}

	/** n8n-core's OAuth2 path stores each token it fetched here: the next read returns it. */
	async updateCredentialsOauthTokenData(_nodeCredentials: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject): Promise<void> {
		this.credentialsByType[type] = { ...this.credentialsByType[type], oauthTokenData: structuredClone(data.oauthTokenData) } as ICredentialDataDecryptedObject;
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	private credentialType(type: string): ICredentialType {
		const credentialType = this.credentialTypes[type];
		if (!credentialType) throw new Error(`Unknown credential type "${type}"`);
		return credentialType;
	}

	private resolve(value: string, credentials: ICredentialDataDecryptedObject, workflow: Workflow, node: INode) {
		if (typeof value !== 'string' || !value.startsWith('=')) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved ? String(resolved) : '';
	}
}
