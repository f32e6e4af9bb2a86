import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { resources } from './actions/resources';
import { router } from './actions/router';

/** "Portfolio: Get Many" under the node on the canvas, in the names the dropdowns show. */
const subtitles = Object.fromEntries(
	Object.entries(resources).flatMap(([resource, { name, description }]) =>
		(description.find((property) => property.name === 'operation')?.options ?? []).map((option) => [
			`${resource}.${(option as { value: string }).value}`,
			`${name}: ${option.name}`,
		]),
	),
);

const SUBTITLE = `={{ (${JSON.stringify(subtitles)})[$parameter["resource"] + "." + $parameter["operation"]] }}`;

export class ServiceReader implements INodeType {
	// The lint asks for its literal subtitle, which shows raw values ("getAll: portfolio"): SUBTITLE uses the names.
	// eslint-disable-next-line n8n-nodes-base/node-class-description-missing-subtitle
	description: INodeTypeDescription = {
		displayName: 'Service Reader',
		name: 'serviceReader',
		icon: { light: 'file:../../icons/service.svg', dark: 'file:../../icons/service.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: SUBTITLE,
		description: 'Read signed records and exports, invite companies, run policies and set SSO in the Service',
		defaults: { name: 'Service Reader' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'serviceApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: Object.entries(resources).map(([value, resource]) => ({ name: resource.name, value })),
				default: 'webhook',
			},
			...Object.values(resources).flatMap((resource) => resource.description),
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
