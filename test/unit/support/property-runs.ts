/**
 * How many runs a property test makes: its own number, scaled by PROPERTY_RUNS_SCALE (default 1).
 * `npm run mutation` sets a small scale: every mutant re-runs the properties that cover it, and a
 * mutant those properties detect is found in the first few dozen runs, while 10,000 runs per mutant
 * would put the whole core out of reach. The normal suite and CI always use the full numbers.
 */
const MIN_RUNS = 25;

export function propertyRuns(full: number): number {
  const scale = Number(process.env.PROPERTY_RUNS_SCALE ?? '1');
  if (!(scale > 0 && scale <= 1)) return full;
  return Math.max(MIN_RUNS, Math.round(full * scale));
}
