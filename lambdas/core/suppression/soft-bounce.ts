/**
 * The soft-bounce budget as a pure function of event times: never of the wall clock, and never of
 * the order the bounces arrived in.
 */

/**
 * Given soft-bounce times sorted ascending, the earliest time at which `limit` of them start a run
 * spanning at most `windowMs` (last minus first, inclusive), or undefined when no such run exists.
 *
 * For a fixed first bounce, the tightest run is it plus the next `limit - 1` bounces, so checking
 * consecutive runs is enough. The result only moves earlier as bounces are added, which is what lets
 * callers min-merge it.
 */
export function earliestCrossingStart(timesAscending: readonly number[], limit: number, windowMs: number): number | undefined {
  for (let i = 0; i + limit - 1 < timesAscending.length; i++) {
    const first = timesAscending[i]!;
    if (timesAscending[i + limit - 1]! - first <= windowMs) return first;
  }
  return undefined;
}
