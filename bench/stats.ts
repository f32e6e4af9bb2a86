/** Small statistics over repeated measurements. Medians, because shared machines give outliers. */

export function median(values: readonly number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile (p in 0..100): the value at or below which p% of the samples fall. */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[Math.min(rank, sorted.length) - 1];
}

export function ratio(numerator: number, denominator: number): number {
	return denominator > 0 && Number.isFinite(numerator) ? numerator / denominator : Number.NaN;
}

/** Min and max: printed next to a median so the spread between runs stays visible. */
export function spread(values: readonly number[]): { min: number; max: number } {
	return { min: Math.min(...values), max: Math.max(...values) };
}
