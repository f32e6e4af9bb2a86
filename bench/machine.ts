import { execFileSync } from 'node:child_process';
import { cpus, freemem, hostname, loadavg, totalmem } from 'node:os';

/** What the figures were measured on: other work on the machine shows in the load averages. */
export interface MachineInfo {
	hostname: string;
	cpuModel: string;
	cores: number;
	memoryMiB: number;
	freeMemoryMiB: number;
	kernel: string;
	node: string;
	/** 1, 5 and 15 minute load averages when the section started and ended. */
	loadAtStart: number[];
	loadAtEnd?: number[];
}

export function machineInfo(): MachineInfo {
	return {
		hostname: hostname(),
		cpuModel: cpus()[0]?.model ?? 'unknown',
		cores: cpus().length,
		memoryMiB: Math.round(totalmem() / 2 ** 20),
		freeMemoryMiB: Math.round(freemem() / 2 ** 20),
		kernel: kernelRelease(),
		node: process.version,
		loadAtStart: roundedLoad(),
	};
}

export function roundedLoad(): number[] {
	return loadavg().map((value) => Math.round(value * 100) / 100);
}

function kernelRelease(): string {
	try {
		return execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim();
	} catch {
		return 'unknown';
	}
}
