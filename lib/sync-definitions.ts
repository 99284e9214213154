/**
 * Sizing of the sync side (worker, sweeper, queue), for the CDK stack and the local runtime standing in
 * for it. Pure data. Kept beside definitions.ts rather than in it, so the sync side stays one unit.
 */
import { SYNC_WORKER_MAX_CONCURRENCY } from '../lambdas/core/sync/settings.js';

export const SYNC_WORKER = {
  timeoutSeconds: 60,
  memoryMb: 256,
  /**
   * Messages a batch. 50: Postmark's cap on one suppression request, the smallest of the batching
   * providers' (docs/sync.md, batched adds), so a receive batch of one provider's adds is one call at
   * each of them; and within BatchGetItem's 100 keys, so its records are still one read. Over SQS's
   * 10 a receive, the event source needs the batching window below (Lambda requires one for a batch
   * over 10). Against 10, it cuts invocations and record reads a change fivefold, and provider calls up
   * to fivefold once a provider's rate binds; in bench §11's local runs, end to end rose by about a
   * sixth and the drain by a third (docs/decisions.md).
   */
  batchSize: 50,
  maxBatchingWindowSeconds: 1,
  /**
   * Event source maximum concurrency: how many copies push at once. Each copy keeps its own per-provider
   * rate (SYNC_<PROVIDER>_RATE), so the account-wide rate is at most this times that, and a 429 pause
   * is shared through the provider's row in the inbox table. Context `syncRates` and `syncConcurrency`
   * give a stack-wide figure that lib/sync-limits.ts divides by this.
   */
  maxConcurrency: SYNC_WORKER_MAX_CONCURRENCY,
} as const;

export const SYNC_SWEEPER = {
  timeoutSeconds: 60,
  memoryMb: 256,
  scheduleMinutes: 1,
  /** One copy at a time: its reserved concurrency, the sweeper's share of the concurrency budget. */
  reservedConcurrency: 1,
} as const;

export const SYNC_QUEUE = {
  defaultName: 'ratchet-sync',
  deadLetterSuffix: '-dead-letters',
  /**
   * At least 6x the worker timeout plus the batching window, as AWS recommends for an event source with
   * a window; a failed attempt sets its own, shorter, visibility.
   */
  visibilityTimeoutSeconds: SYNC_WORKER.timeoutSeconds * 6 + SYNC_WORKER.maxBatchingWindowSeconds,
  retentionDays: 14,
  /**
   * Backstop only: the worker dead-letters by time (SYNC_RETRY_SECONDS, an hour by default). This
   * catches a message that crashes the worker every time, which never reaches that code.
   */
  maxReceiveCount: 200,
} as const;

export function syncResourceNames(prefix: string) {
  return {
    queue: `${prefix}-sync`,
    deadLetterQueue: `${prefix}-sync${SYNC_QUEUE.deadLetterSuffix}`,
    secret: (provider: string) => `${prefix}/sync/${provider}`,
  };
}

/**
 * `ratchet sync reconcile` waits out a provider's 429s rather than failing the run (a backlog of pages or
 * pushes meets the provider's rate limit as a matter of course): at most `rateLimitWaits` in a row on one
 * call, and none whose pause is longer than `rateLimitMaxWaitMs` (a quota rather than a burst: the run
 * fails at once, and a rerun finishes what is left).
 */
export const SYNC_RECONCILE = {
  rateLimitWaits: 20,
  rateLimitMaxWaitMs: 5 * 60_000,
} as const;
