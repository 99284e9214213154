/**
 * How `ratchet sync reconcile --apply` paces its pushes: at the provider's configured rate
 * (SYNC_<PROVIDER>_RATE), through the sync worker's own gate (lambdas/adapters/sync-gate.ts), so a large
 * repair leaves the provider's rate limit to the live worker instead of spending it in a burst that the
 * worker then meets as 429s. One call at a time, and never handed back: the worker hands a late call back
 * to its queue, but an operator's run has no queue, so each push waits for its slot. A 429 is still
 * waited out by the adapter (SYNC_RECONCILE.rateLimitWaits).
 */
import { ProviderGate } from '../../../lambdas/adapters/sync-gate.js';
import type { ProviderLimits } from '../../../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../../../lambdas/core/sync/target.js';

/** The clock a gate reads and waits on; the real one unless a test injects its own. */
export interface PaceClock {
  now?: () => number;
  wait?: (ms: number) => Promise<unknown>;
}

/** N pushes through it take at least (N - 1) / rate seconds. */
export function reconcileGate(
  provider: SyncProviderName,
  limits: Pick<ProviderLimits, 'rate'>,
  clock: PaceClock = {},
): ProviderGate {
  return new ProviderGate(provider, { concurrency: 1, rate: limits.rate }, clock);
}
