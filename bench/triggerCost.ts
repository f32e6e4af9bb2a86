/** The trigger bench's costs: n8n's CPU per accepted and refused delivery, and what Add Company Details costs per alert. */
import type { N8n } from '../test/e2e/n8n';
import { CHANGES_ROW } from '../nodes/ServiceTrigger/companyDetails/companyDetails';
import { cpuMs, n8nPid } from './cpu';
import { adversarialDeliveries, buildDeliveries } from './deliveries';
import { namedEvents, PORTFOLIO_COMPANIES } from './deliveryBody';
import { ratio, spread } from './stats';
import { triggerCompanyWorkflowId } from './triggerWorkflows';
import { answers, countExecutions } from './triggerRounds';
import type { CompanyDetailsCost, DeliveryCpu, Target, TriggerOptions, TriggerVariant } from './triggerTypes';
import { sendDeliveries } from './webhookLoad';

/**
 * n8n's CPU per accepted delivery (its execution included) and per refused one, each measured over
 * a round of that kind alone at the bench's concurrency, after n8n has gone quiet, with n8n's idle
 * CPU over the same time taken out.
 */
export async function measureCpu(n8n: N8n, t: Target, options: TriggerOptions, acceptedOnly = false): Promise<DeliveryCpu> {
	const pid = n8nPid(n8n.port);
	const count = Math.min(options.deliveries, 500);
	const quiet = async () => {
		const executions = await countExecutions(n8n, t.workflowId, t.expected);
		return executions.count;
	};
	const idleMsPerMs = async () => {
		const [start, at] = [cpuMs(pid), Date.now()];
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		return (cpuMs(pid) - start) / (Date.now() - at);
	};
	const measure = async (send: () => Promise<void>) => {
		await quiet();
		const idle = await idleMsPerMs();
		const [start, at] = [cpuMs(pid), Date.now()];
		await send();
		await quiet();
		return (cpuMs(pid) - start - idle * (Date.now() - at)) / count;
	};
	const forged = (kinds: string[]) =>
		buildDeliveries(count * 5, 1, t.signing, `cpu_${kinds.join('_').replace(/ /g, '')}`)
			.filter((delivery) => delivery.forgery && kinds.includes(delivery.forgery))
			.slice(0, count);
	const sendForged = async (kinds: string[], deliveries = forged(kinds)) => {
		const result = await sendDeliveries(t.url, n8n.ca, deliveries, options.concurrency);
		const refused = result.outcomes.filter((outcome) => outcome.status === 401).length;
		if (refused !== result.outcomes.length) throw new Error(`cpu round: ${refused} of ${result.outcomes.length} forged deliveries refused (answers: ${answers(result)})`);
		// Counted with the rounds' forgeries: the chain's executions for forged requests include these.
		t.forgedSent += result.outcomes.length;
		t.forgedRefused += refused;
		if (t.startsOnForged) t.expected += refused;
	};
	const acceptedMs = await measure(async () => {
		// Valid deliveries only: forgedEvery beyond the count leaves none out.
		const result = await sendDeliveries(t.url, n8n.ca, buildDeliveries(count, count + 1, t.signing, 'cpu_accepted'), options.concurrency);
		const accepted = result.outcomes.filter((outcome) => outcome.status === 200).length;
		if (accepted !== count) throw new Error(`cpu round: ${accepted} of ${count} valid deliveries accepted (answers: ${answers(result)})`);
		t.expected += accepted;
		t.validAccepted += accepted;
	});
	if (acceptedOnly) return { acceptedMs, refusedMs: Number.NaN, refusedBeforeSecretMs: Number.NaN, refusedRatio: Number.NaN, deliveries: count };
	const refusedMs = await measure(() => sendForged(['wrong secret', 'body changed after signing', 'corrupted v1']));
	const refusedBeforeSecretMs = await measure(() => sendForged(['stale timestamp', 'no signature']));
	const cpu: DeliveryCpu = { acceptedMs, refusedMs, refusedBeforeSecretMs, refusedRatio: refusedMs / acceptedMs, deliveries: count };
	if (t.key !== 'trigger') return cpu;
	const refusedAdversarialMs = await measure(() => sendForged([], adversarialDeliveries(count, t.signing, 'cpu_adversarial')));
	return { ...cpu, refusedAdversarialMs, adversarialRatio: refusedAdversarialMs / refusedMs };
}

/**
 * Add Company Details under load: portfolio reads per alert (every portfolio request the sandbox
 * answered, over every execution of the option-on workflow), and the newest executions read back
 * through n8n's API to show each carries the company's row.
 */
export async function companyCost(n8n: N8n, portfolioRequests: number, on: TriggerVariant, off: TriggerVariant, options: TriggerOptions): Promise<CompanyDetailsCost> {
	const checked = 20;
	type Run = { data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } };
	type Detailed = { data: Array<{ data?: { resultData?: { runData?: Record<string, Run[]> } } }> };
	const query = new URLSearchParams({ workflowId: triggerCompanyWorkflowId, includeData: 'true', status: 'success', limit: String(checked) });
	const page = await n8n.api.request<Detailed>('GET', `/executions?${query}`);
	const items = page.data.map((execution) => execution.data?.resultData?.runData?.['Service Trigger']?.[0]?.data?.main?.[0]?.[0]?.json);
	const carries = (json: Record<string, unknown> | undefined) => {
		const company = json?.company as Record<string, unknown> | undefined;
		return company !== undefined && company.shared === true && company.ke === json?.ke && typeof company.name === 'string';
	};
	const withCompany = items.filter(carries).length;
	const executions = on.executionsCounted;
	const rowChanging = namedEvents.filter((type) => CHANGES_ROW.test(type)).length;
	const cost: CompanyDetailsCost = {
		portfolioCompanies: PORTFOLIO_COMPANIES,
		pageSize: options.portfolioPageSize,
		rowChangingShare: rowChanging / namedEvents.length,
		portfolioRequests,
		executions,
		requestsPerAlert: ratio(portfolioRequests, executions),
		checkedExecutions: items.length,
		withCompany,
		example: items.find(carries)?.company as Record<string, unknown> | undefined,
		p50RatioVsOff: ratio(on.p50Ms, off.p50Ms),
		p99RatioVsOff: ratio(on.p99Ms, off.p99Ms),
		offP99RangeMs: spread((off.rounds ?? []).map((round) => round.p99Ms)),
		onP99RangeMs: spread((on.rounds ?? []).map((round) => round.p99Ms)),
	};
	options.log(
		`  Add Company Details: ${portfolioRequests} portfolio requests for ${executions} executions (${cost.requestsPerAlert.toFixed(2)} a delivery); ` +
			`${withCompany} of ${items.length} newest executions carry company; p99 on/off ${cost.p99RatioVsOff.toFixed(2)}x`,
	);
	return cost;
}
