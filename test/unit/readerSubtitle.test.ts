import type { INodePropertyOptions } from 'n8n-workflow';
import { resources } from '../../nodes/ServiceReader/actions/resources';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';
import { readmeOperations } from '../browser/readme';

// The subtitle under the node on the canvas is a literal (n8n's lint wants one): it must name every
// resource and operation exactly as the Resource and Operation dropdowns do.
test('the Reader\'s subtitle names each operation as "Resource: Operation", in the dropdowns\' words', () => {
	const subtitle = new ServiceReader().description.subtitle ?? '';
	const map = JSON.parse(subtitle.slice(subtitle.indexOf('({') + 1, subtitle.indexOf('})') + 1)) as Record<string, string>;
	const expected = Object.fromEntries(
		Object.entries(resources).flatMap(([resource, { name, description }]) =>
			((description.find((property) => property.name === 'operation')?.options ?? []) as INodePropertyOptions[]).map(
				(option) => [`${resource}.${String(option.value)}`, `${name}: ${option.name}`],
			),
		),
	);
	expect(map).toEqual(expected);
	expect(subtitle).toMatch(/^=\{\{ \(\{.*\}\)\[\$parameter\["resource"\] \+ "\." \+ \$parameter\["operation"\]\] \}\}$/);
});

// The README's operations table is the user's list of what the Reader does: the same, in the same words.
test('the README\'s Service Reader table lists every resource and operation of the node, and nothing else', () => {
	const readme = readmeOperations();
	const expected = new Map(
		Object.values(resources).map(({ name, description }) => [
			name,
			((description.find((property) => property.name === 'operation')?.options ?? []) as INodePropertyOptions[]).map((option) => option.name).sort(),
		]),
	);
	expect(new Map([...readme].map(([resource, operations]) => [resource, [...operations].sort()]))).toEqual(expected);
});
