/**
 * Number formatting that never flatters the package: each figure is rounded in the direction that
 * is worse for the package (its times and memory up, its rates down; the competitor's the other
 * way). Targets are judged on the unrounded values.
 */
export type Towards = 'up' | 'down';

export function round(value: number, digits: number, towards: Towards): number {
	const scale = 10 ** digits;
	return (towards === 'up' ? Math.ceil(value * scale - 1e-9) : Math.floor(value * scale + 1e-9)) / scale;
}

export function fixed(value: number, digits: number, towards: Towards): string {
	if (!Number.isFinite(value)) return 'n/a';
	return round(value, digits, towards).toFixed(digits);
}

/** Whole number with thousands separators. */
export function whole(value: number, towards: Towards): string {
	if (!Number.isFinite(value)) return 'n/a';
	return round(value, 0, towards).toLocaleString('en');
}

export function seconds(ms: number, towards: Towards): string {
	if (!Number.isFinite(ms)) return 'n/a';
	return ms < 10_000 ? `${fixed(ms / 1000, 2, towards)} s` : `${fixed(ms / 1000, 1, towards)} s`;
}

export function mib(value: number, towards: Towards): string {
	return Number.isFinite(value) ? `${whole(value, towards)} MiB` : 'n/a';
}
