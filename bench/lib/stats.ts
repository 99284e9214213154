/**
 * Summary statistics and timing helpers. The machine the benchmarks run on is shared and noisy, so
 * everything reports medians (and a nearest-rank p99 where latency is the point), and comparisons are
 * ratios of things measured side by side in the same run.
 */

/** Median of a non-empty sample (mean of the two middle values for even sizes). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile, `p` in (0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/**
 * Median of the per-round ratios a[i] / b[i]: each round ran both sides back to back, so a burst of
 * noise from other tenants hits the numerator and the denominator of the same pair.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) throw new Error('paired samples must have the same, non-zero size');
  return median(a.map((value, i) => value / b[i]!));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Number formatting for the report: a few significant digits, no false precision. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(digits)).toString();
}

export function fmtRatio(value: number): string {
  return `${value.toFixed(2)}×`;
}

export function fmtBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}
