/**
 * When a failed push is tried again. Pure; the random number is injected.
 *
 * Transient failures (5xx, timeouts, network) back off exponentially from 5 s, capped at 15 min, with
 * "equal jitter" (half fixed, half random) so workers that failed together do not retry together, yet
 * no retry comes sooner than half its step. A 429 waits exactly until the time the provider named.
 * A change is dead-lettered once its first attempt is older than the horizon (at least an hour by
 * default): with this schedule that is a dozen or so attempts, and a 429 storm cannot exhaust it early
 * because it is measured in time, not in attempts.
 */
export const RETRY_BASE_SECONDS = 5;
export const RETRY_CAP_SECONDS = 900;

/** Seconds until attempt `receiveCount + 1`, for a transient failure of attempt `receiveCount` (1-based). */
export function backoffSeconds(receiveCount: number, random: number): number {
  const step = Math.min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, Math.min(20, receiveCount - 1)));
  return Math.max(1, Math.ceil(step / 2 + (step / 2) * Math.min(1, Math.max(0, random))));
}

/** Seconds until the time a 429 named, at least 1 (SQS visibility is whole seconds). */
export function pauseSeconds(retryAtMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((retryAtMs - nowMs) / 1000));
}

/** Whether a change first tried at `firstAttemptMs` has run out of retries. */
export function exhausted(firstAttemptMs: number, nowMs: number, horizonMs: number): boolean {
  return nowMs - firstAttemptMs >= horizonMs;
}
