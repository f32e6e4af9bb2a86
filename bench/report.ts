/** The table `npm run bench` prints (and docs/performance.md shows), and the targets judged on the results. */
import { variantNames, type ExportVariant } from './exportWorkflows';
import type { VariantResult } from './exports';
import { fixed, mib, seconds, whole, type Towards } from './format';
import type { Measured, TargetCheck } from './results';
import type { TriggerVariant } from './triggerTypes';
import { ratio } from './stats';
import { ADVERSARIAL_FORGERY } from './verifier';

const MAIN_SIZE = 100_000;

const limitWords: Record<string, string> = {
	stream: 'stream parser, one connection',
	page: 'page by page, one connection',
	'page-new-connection': 'page by page, new TLS connection per page',
};

function variant(results: Measured, size: number, name: ExportVariant): VariantResult | undefined {
	return results.exports[String(size)]?.find((entry) => entry.variant === name);
}

function completed(entry: VariantResult | undefined): entry is VariantResult {
	return entry !== undefined && entry.completed > 0;
}

/** Fastest limit at a size: the reference is the better of the two ways to parse. */
function bestLimit(results: Measured, size: number) {
	// The limit proper keeps its connection; the new-connection mode only shows what n8n's helpers cost.
	const modes = (results.limit[String(size)] ?? []).filter((mode) => mode.mode !== 'page-new-connection');
	return modes.reduce<(typeof modes)[number] | undefined>(
		(best, mode) => (best === undefined || mode.rowsPerSecond > best.rowsPerSecond ? mode : best),
		undefined,
	);
}

function check(target: string, measured: number, bound: number, atLeast: boolean, unit: (value: number, towards: Towards) => string): TargetCheck {
	const met = Number.isFinite(measured) && (atLeast ? measured >= bound : measured <= bound);
	// The measured value is rounded against the package, so "met" is never shown for a near miss.
	const shown = unit(measured, atLeast ? 'down' : 'up');
	const words = !Number.isFinite(measured)
		? 'not measured'
		: met
			? `met: ${shown} (target ${atLeast ? '>=' : '<='} ${unit(bound, 'down')})`
			: `MISSED: ${shown} (target ${atLeast ? '>=' : '<='} ${unit(bound, 'down')}; ${
					atLeast ? `${fixed((1 - measured / bound) * 100, 0, 'up')}% short` : `${fixed((measured / bound - 1) * 100, 0, 'up')}% over`
				})`;
	return { target, measured, bound, atLeast, met, words };
}

const x = (value: number, towards: Towards) => `${fixed(value, 2, towards)}x`;

export function judgeTargets(results: Measured): TargetCheck[] {
	const checks: TargetCheck[] = [];
	const a = variant(results, MAIN_SIZE, 'A');
	const b = variant(results, MAIN_SIZE, 'B');
	const c = variant(results, MAIN_SIZE, 'C');
	const at = '100,000 rows';
	if (completed(a) && completed(b) && completed(c)) {
		checks.push(check(`A time / C time at ${at}`, ratio(a.executionMs, c.executionMs), 0.5, false, x));
		checks.push(check(`B time / C time at ${at}`, ratio(b.executionMs, c.executionMs), 0.5, false, x));
		checks.push(check(`A peak RSS / C peak RSS at ${at}`, ratio(a.peakMainMiB, c.peakMainMiB), 0.5, false, x));
		checks.push(check(`B peak RSS / C peak RSS at ${at}`, ratio(b.peakMainMiB, c.peakMainMiB), 0.5, false, x));
	}
	const floor = variant(results, MAIN_SIZE, 'floor');
	if (completed(a) && completed(floor)) {
		checks.push(check(`A time / HTTP Request alone (n8n's floor) time at ${at}`, ratio(a.executionMs, floor.executionMs), 1.5, false, x));
	}
	const sizes = Object.keys(results.exports).map(Number).sort((p, q) => p - q);
	const bSmall = variant(results, sizes[0], 'B');
	const bLarge = variant(results, sizes.at(-1)!, 'B');
	if (sizes.length > 1 && sizes.at(-1)! >= 1_000_000 && bSmall && bLarge) {
		const measured = completed(bLarge) && completed(bSmall) ? ratio(bLarge.peakMainMiB, bSmall.peakMainMiB) : Number.NaN;
		checks.push(
			check(`B peak RSS at ${whole(sizes.at(-1)!, 'down')} / at ${whole(sizes[0], 'down')} rows`, measured, 1.5, false, x),
		);
	}
	for (const size of sizes) {
		const rowsA = variant(results, size, 'A');
		const limit = bestLimit(results, size);
		if (!limit || !rowsA) continue;
		const measured = completed(rowsA) ? ratio(rowsA.rowsPerSecond, limit.rowsPerSecond) : Number.NaN;
		checks.push(check(`A rows/s / limit rows/s at ${whole(size, 'down')} rows`, measured, 0.5, true, x));
	}
	const trigger = results.trigger;
	if (trigger) {
		// How every change to the trigger path is judged (docs/development.md): against the Stripe Trigger in the same run.
		const cpuVsStripe = acceptedCpuVsStripe(trigger);
		if (cpuVsStripe !== undefined) checks.push(check('Service Trigger n8n CPU per accepted delivery / Stripe Trigger\'s (same run)', cpuVsStripe, 1, false, x));
		if (trigger.stripeTrigger) checks.push(check('Service Trigger p99 / Stripe Trigger p99', trigger.p99RatioVsStripe ?? Number.NaN, 1, false, x));
		if (trigger.handChain) checks.push(check('Service Trigger p99 / hand-built chain p99', trigger.p99RatioVsHandChain ?? Number.NaN, 1, false, x));
		checks.push(check('Service Trigger p99 / stock Webhook (unverified) p99', trigger.p99Ratio, 1.5, false, x));
		const forged = trigger.serviceTrigger;
		checks.push(
			check(
				`Executions the Service Trigger started for ${whole(forged.forgedSent, 'down')} forged deliveries` +
					(trigger.handChain ? ` (the hand-built chain: ${whole(trigger.handChain.executionsForForged ?? Number.NaN, 'down')} for ${whole(trigger.handChain.forgedSent, 'down')})` : ''),
				forged.accountedFor ? (forged.executionsForForged ?? Number.NaN) : Number.NaN,
				0,
				false,
				(v) => (Number.isFinite(v) ? String(Math.round(v)) : 'n/a'),
			),
		);
		checks.push(
			check('Every delivery accounted for, every forged one refused', trigger.accountedFor ? 1 : 0, 1, true, (v) => (v >= 1 ? 'yes' : 'no')),
		);
		if (trigger.cpu) {
			checks.push(check('n8n CPU per refused / per accepted delivery', trigger.cpu.refusedRatio, 0.2, false, x));
			if (trigger.cpu.adversarialRatio !== undefined) {
				checks.push(check('n8n CPU per refusal with a 16,000-character adversarial header / per ordinary refusal', trigger.cpu.adversarialRatio, 2, false, x));
			}
		}
		const company = trigger.companyDetails;
		if (company) {
			// "Within noise": the option-off variant's own highest round p99 over its median, measured in the same run.
			const noise = ratio(company.offP99RangeMs.max, trigger.serviceTrigger.p99Ms);
			checks.push(check(`Service Trigger p99 with Add Company Details on / off (bound: off's highest round / its median)`, company.p99RatioVsOff, noise, false, x));
			checks.push(
				check(
					`Executions with Add Company Details carrying the company's row (${company.checkedExecutions} newest read back)`,
					company.checkedExecutions > 0 ? company.withCompany / company.checkedExecutions : Number.NaN,
					1,
					true,
					(v) => (Number.isFinite(v) ? `${Math.round(v * company.checkedExecutions)} of ${company.checkedExecutions}` : 'n/a'),
				),
			);
		}
	}
	if (results.verifier) {
		checks.push(check('Service verifier / stripe verifications per second', results.verifier.ratioVsStripe, 1, true, x));
	}
	return checks;
}

/** The Service Trigger's n8n CPU per accepted delivery over the Stripe Trigger's, measured in the same run. */
export function acceptedCpuVsStripe(trigger: NonNullable<Measured['trigger']>): number | undefined {
	const ours = trigger.serviceTrigger.cpu?.acceptedMs;
	const stripe = trigger.stripeTrigger?.cpu?.acceptedMs;
	return ours === undefined || stripe === undefined ? undefined : ratio(ours, stripe);
}

/**
 * The two figures a change to the trigger path is judged by, in one line: n8n's CPU per accepted delivery
 * and p99, each against the Stripe Trigger's in the same run, with the load the run saw.
 */
export function triggerVerdict(results: Measured): string | undefined {
	const trigger = results.trigger;
	const cpuVsStripe = trigger && acceptedCpuVsStripe(trigger);
	if (!trigger || cpuVsStripe === undefined) return undefined;
	const ours = trigger.serviceTrigger;
	const stripe = trigger.stripeTrigger!;
	const load = `${results.machine.loadAtStart.join(' ')}${results.machine.loadAtEnd ? ` -> ${results.machine.loadAtEnd.join(' ')}` : ''}`;
	return (
		`Service Trigger against the Stripe Trigger, same run: n8n CPU per accepted delivery ${fixed(ours.cpu!.acceptedMs, 1, 'up')} / ${fixed(stripe.cpu!.acceptedMs, 1, 'down')} ms = ${x(cpuVsStripe, 'up')} (target <= 1.00x); ` +
		`p99 ${fixed(ours.p99Ms, 0, 'up')} / ${fixed(stripe.p99Ms, 0, 'down')} ms = ${x(ratio(ours.p99Ms, stripe.p99Ms), 'up')} (target <= 0.90x); load ${load}`
	);
}

/** Deliveries n8n never answered (overload), which the execution count may or may not include. */
function noAnswer(entry: { noAnswer?: number; noAnswerErrors?: Record<string, number> }): string {
	const total = Object.values(entry.noAnswerErrors ?? {}).reduce((sum, n) => sum + n, 0);
	return total > 0 ? `; ${total} got no answer (${Object.entries(entry.noAnswerErrors ?? {}).map(([why, n]) => `${n} ${why}`).join(', ')})` : '';
}

function row(cells: string[]): string {
	return `| ${cells.join(' | ')} |`;
}

export function renderTable(results: Measured): string {
	const lines = [
		row(['Item', 'Variant', 'Work', 'Time (median)', 'Throughput', 'Peak RSS', 'Compared']),
		row(['---', '---', '---:', '---:', '---:', '---:', '---']),
	];
	const base = results.baseline;
	if (base && completed(base)) {
		lines.push(
			row(['1', variantNames.baseline, 'no rows', `process ${seconds(base.processMs, 'down')}`, '', mib(base.peakMainMiB, 'down'), 'what n8n holds before any node runs']),
		);
	}
	const sizes = Object.keys(results.exports).map(Number).sort((p, q) => p - q);
	for (const size of sizes) {
		const c = variant(results, size, 'C');
		const floor = variant(results, size, 'floor');
		for (const name of ['A', 'B', 'C', 'floor'] as const) {
			const entry = variant(results, size, name);
			if (!entry) continue;
			const ours = name === 'A' || name === 'B';
			const worse: Towards = ours ? 'up' : 'down';
			const better: Towards = ours ? 'down' : 'up';
			if (entry.completed === 0) {
				lines.push(row(['1', `${name}: ${variantNames[name]}`, `${whole(size, 'down')} rows`, 'did not complete', '', '', entry.failures[0] ?? '']));
				continue;
			}
			let compared = '';
			if (ours && completed(c)) {
				const overBase = base && completed(base) ? ratio(entry.peakMainMiB - base.peakMainMiB, c.peakMainMiB - base.peakMainMiB) : Number.NaN;
				compared = `time ${name}/C ${x(ratio(entry.executionMs, c.executionMs), 'up')}, RSS ${name}/C ${x(ratio(entry.peakMainMiB, c.peakMainMiB), 'up')}` +
					(Number.isFinite(overBase) ? ` (above n8n alone ${x(overBase, 'up')})` : '');
				const limit = bestLimit(results, size);
				if (limit) compared += `, ${fixed((100 * entry.rowsPerSecond) / limit.rowsPerSecond, 0, 'down')}% of limit rows/s`;
				if (completed(floor)) compared += `, time ${name}/floor ${x(ratio(entry.executionMs, floor.executionMs), 'up')}`;
			}
			if (name === 'floor') compared = "n8n's floor for paged fetching: pages fetched, nothing parsed";
			if (entry.failures.length > 0) compared += ` (${entry.failures.length} run(s) failed)`;
			lines.push(
				row([
					'1',
					`${name}: ${variantNames[name]}`,
					`${whole(size, 'down')} rows`,
					`${seconds(entry.executionMs, worse)} (process ${seconds(entry.processMs, worse)})`,
					`${whole(entry.rowsPerSecond, better)} rows/s`,
					`${mib(entry.peakMainMiB, worse)} (with printing ${mib(entry.kernelMaxRssMiB, worse)})`,
					compared,
				]),
			);
		}
		for (const limit of results.limit[String(size)] ?? []) {
			lines.push(
				row([
					'2',
					`limit: Node https + csv-parse (${limitWords[limit.mode]})`,
					`${whole(size, 'down')} rows`,
					seconds(limit.ms, 'down'),
					`${whole(limit.rowsPerSecond, 'up')} rows/s`,
					mib(limit.peakRssMiB, 'down'),
					limit.mode === 'page-new-connection' ? 'no n8n; not the limit: shows the cost of no keep-alive' : 'no n8n',
				]),
			);
		}
	}
	for (const [trigger, engine] of [
		[results.trigger, ''],
		[results.triggerLegacyEngine, ' [N8N_EXPRESSION_ENGINE=legacy]'],
	] as const) {
		if (!trigger) continue;
		const ours = [trigger.serviceTrigger, trigger.serviceTriggerNoMemory, trigger.serviceTriggerCompany].filter((entry): entry is TriggerVariant => entry !== undefined);
		const entries = [...ours, trigger.stripeTrigger, trigger.handChain, trigger.stockWebhook].filter((entry): entry is TriggerVariant => entry !== undefined);
		for (const entry of entries) {
			const isOurs = ours.includes(entry);
			const worse: Towards = isOurs ? 'up' : 'down';
			const executions = `executions ${entry.executionsCounted}/${entry.executionsExpected}`;
			let compared: string;
			if (!entry.verifies) {
				compared = `${executions}; forged accepted (no verification)${noAnswer(entry)}`;
			} else {
				const versus = isOurs
					? [trigger.stripeTrigger && `${x(ratio(entry.p99Ms, trigger.stripeTrigger.p99Ms), 'up')} the Stripe Trigger's`, trigger.handChain && `${x(ratio(entry.p99Ms, trigger.handChain.p99Ms), 'up')} the chain's`]
							.filter(Boolean)
							.join(', ')
					: '';
				compared =
					`p99 ${x(ratio(entry.p99Ms, trigger.stockWebhook.p99Ms), worse)} the stock Webhook's${versus ? `, ${versus}` : ''}; p50 ${x(ratio(entry.p50Ms, trigger.stockWebhook.p50Ms), worse)} the stock Webhook's; ` +
					`${executions} (${entry.executionsForForged ?? 'n/a'} for forged requests), forged refused ${entry.forgedRefused}/${entry.forgedSent}${noAnswer(entry)}`;
			}
			const company = trigger.companyDetails;
			if (company && entry === trigger.serviceTriggerCompany) {
				compared +=
					`; p99 ${x(company.p99RatioVsOff, 'up')}, p50 ${x(company.p50RatioVsOff, 'up')} the option off's (off's rounds p99 ${fixed(company.offP99RangeMs.min, 0, 'down')}-${fixed(company.offP99RangeMs.max, 0, 'down')} ms, on's ${fixed(company.onP99RangeMs.min, 0, 'up')}-${fixed(company.onP99RangeMs.max, 0, 'up')} ms); ` +
					`${fixed(company.requestsPerAlert, 2, 'up')} portfolio requests a delivery (${whole(company.portfolioRequests, 'up')} for ${whole(company.executions, 'down')} executions; ${whole(company.portfolioCompanies, 'down')} companies, ${whole(company.pageSize, 'down')} a page, ${fixed(company.rowChangingShare * 100, 0, 'up')}% of events re-read up to the company's page); ` +
					`company on ${company.withCompany} of ${company.checkedExecutions} executions read back`;
			}
			lines.push(
				row([
					'3',
					`${entry.name}${engine}`,
					`${whole(trigger.deliveriesPerRound, 'down')} signed + ${whole(trigger.forgedPerRound, 'down')} forged, ${trigger.concurrency} at a time`,
					`p50 ${fixed(entry.p50Ms, 1, worse)} ms, p99 ${fixed(entry.p99Ms, 1, worse)} ms`,
					`${whole(entry.deliveriesPerSecond, isOurs ? 'down' : 'up')} deliveries/s`,
					'',
					compared,
				]),
			);
		}
		for (const entry of entries.filter((each) => each.cpu)) {
			const cpu = entry.cpu!;
			const towards: Towards = ours.includes(entry) ? 'up' : 'down';
			lines.push(
				row([
					'3',
					`${entry.name}: n8n CPU per delivery${engine}`,
					`${whole(cpu.deliveries, 'down')} of each kind, ${trigger.concurrency} at a time`,
					Number.isFinite(cpu.refusedMs ?? Number.NaN)
						? `accepted ${fixed(cpu.acceptedMs, 2, towards)} ms, refused ${fixed(cpu.refusedMs, 2, towards)} ms, refused from the header ${fixed(cpu.refusedBeforeSecretMs, 2, towards)} ms${
								cpu.refusedAdversarialMs === undefined ? '' : `, refused with a 16,000-character adversarial header ${fixed(cpu.refusedAdversarialMs, 2, towards)} ms`
							}`
						: `accepted ${fixed(cpu.acceptedMs, 2, towards)} ms`,
					'',
					'',
					(entry === trigger.serviceTrigger && trigger.stripeTrigger?.cpu
						? `**accepted ${x(ratio(cpu.acceptedMs, trigger.stripeTrigger.cpu.acceptedMs), towards)} the Stripe Trigger's (same run)**; `
						: '') +
					(Number.isFinite(cpu.refusedRatio ?? Number.NaN)
						? `refused/accepted ${x(cpu.refusedRatio, towards)} (accepted includes its execution${entry.startsOnForged ? '; so does refused' : ''})${
								cpu.adversarialRatio === undefined ? '' : `; adversarial header/ordinary refusal ${x(cpu.adversarialRatio, towards)}`
							}`
						: entry === trigger.serviceTriggerCompany && trigger.serviceTrigger.cpu
							? `accepted (its execution and lookup included) ${x(ratio(cpu.acceptedMs, trigger.serviceTrigger.cpu.acceptedMs), 'up')} the option off's; refusals are the same code as the option off's, not measured again`
							: 'accepted includes its execution'),
				]),
			);
		}
		// Older results carry the Service Trigger's CPU on the result only.
		if (trigger.cpu && !trigger.serviceTrigger.cpu) {
			const { cpu } = trigger;
			lines.push(
				row([
					'3',
					`Service Trigger: n8n CPU per delivery${engine}`,
					`${whole(cpu.deliveries, 'down')} of each kind, ${trigger.concurrency} at a time`,
					`accepted ${fixed(cpu.acceptedMs, 2, 'up')} ms, refused ${fixed(cpu.refusedMs, 2, 'up')} ms, refused from the header ${fixed(cpu.refusedBeforeSecretMs, 2, 'up')} ms`,
					'',
					'',
					`refused/accepted ${x(cpu.refusedRatio, 'up')} (accepted includes its execution)`,
				]),
			);
		}
	}
	const verifier = results.verifier;
	if (verifier) {
		for (const entry of verifier.cases) {
			const ours = entry.name.startsWith('Service');
			const perSecond = entry.perSecond;
			lines.push(
				row([
					'4',
					entry.name,
					`${(verifier.bodyBytes / 1024).toFixed(0)} KB body`,
					`${fixed(1e6 / perSecond, 2, ours ? 'up' : 'down')} µs`,
					`${whole(perSecond, ours ? 'down' : 'up')}/s`,
					'',
					entry.name === 'Service verifier'
						? `${x(verifier.ratioVsStripe, 'down')} stripe's rate`
						: entry.name === 'Service verifier + JSON.parse'
							? `${x(verifier.ratioVsStripeWithParse, 'down')} constructEvent's rate`
							: entry.name === ADVERSARIAL_FORGERY && verifier.adversarialRefusalCost !== undefined
								? `${x(verifier.adversarialRefusalCost, 'up')} the CPU of an ordinary forgery's refusal`
								: '',
				]),
			);
		}
	}
	return lines.join('\n');
}

export const TABLE_BLOCK_START = '<!-- bench-table:start (generated by `npm run bench` from bench/results.json) -->';
export const TABLE_BLOCK_END = '<!-- bench-table:end -->';

/** The generated block of docs/performance.md: where and when it was measured (with the machine's load), the table, each target met or missed. */
export function renderTableBlock(results: Measured & { table: string; targets: TargetCheck[] }): string {
	const m = results.machine;
	const load = (section: string) => {
		const known = results.loads?.[section as keyof NonNullable<typeof results.loads>];
		return known ? `load ${known.start.join(' ')} -> ${known.end?.join(' ') ?? 'n/a'}` : 'load not recorded';
	};
	const sections = Object.entries(results.measuredAt ?? {})
		.map(([section, at]) => `${section} ${at.slice(0, 10)} at ${results.commits?.[section as keyof typeof results.commits] ?? 'n/a'} (${load(section)})`)
		.join('; ');
	return [
		`Measured on ${m.cpuModel}, ${m.cores} cores, ${Math.round(m.memoryMiB / 1024)} GiB; Node ${m.node}; n8n ${results.n8nVersion ?? 'n/a'}. ` +
			`Each part, with the load averages (1, 5, 15 min) at the start and end of the run that measured it: ${sections}. ` +
			`With ${m.cores} cores, a load above ${m.cores} means the machine was shared and every figure is slower for it.`,
		'',
		results.table,
		'',
		'Targets:',
		'',
		...results.targets.map((target) => `- ${target.target}: ${target.words}`),
		...results.errors.map((error) => `- error: ${error}`),
		...(results.trigger?.peerErrors ?? []).map((error) => `- peer not measured: ${error}`),
		...(results.notes ?? []).map((note) => `- note: ${note}`),
	].join('\n');
}
