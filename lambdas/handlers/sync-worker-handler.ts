/**
 * SQS batch → one push per message, all at once (each provider's gate limits its own calls, so a slow
 * or failing provider never holds up the others), with partial batch failures. A failure is retried by
 * hiding the message until its next attempt (the 429's named time, or backoff with jitter), and is
 * dead-lettered once its first attempt is older than the retry horizon, or at once when the provider
 * refused it for good. The same handler runs in Lambda and under the local sync poller.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Counters, Log } from '../core/pipeline/ports.js';
import { parseSyncMessage, type SyncMessage } from '../core/sync/message.js';
import { extendLease, markDead, type PushDeps, pushChange } from '../core/sync/push.js';
import { backoffSeconds, exhausted, pauseSeconds } from '../core/sync/retry.js';
import { type SyncProviderName, SyncRateLimitedError, SyncRefusedError } from '../core/sync/target.js';

export const SYNC_METRICS = { pushed: 'SyncPushed', failed: 'SyncFailed', retried: 'SyncRetried' } as const;

/** The sweeper leaves a waiting message alone until this long after its next attempt is due. */
const LEASE_GRACE_MS = 60_000;

export interface SyncWorkerDeps {
  push: PushDeps;
  queue: {
    hide(receiptHandle: string, seconds: number): Promise<void>;
    deadLetter(body: string, reason: { provider: string; error: string }): Promise<void>;
  };
  succeeded?(provider: SyncProviderName, atMs: number): Promise<void>;
  retryHorizonMs: number;
  log: Log;
  counters: Counters;
  random?: () => number;
}

export type SyncWorkerHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function createSyncWorkerHandler(deps: SyncWorkerDeps): SyncWorkerHandler {
  return async (event) => {
    const failures: string[] = [];
    const results = await Promise.all(event.Records.map((record) => handle(deps, record)));
    results.forEach((ok, i) => {
      if (!ok) failures.push(event.Records[i]!.messageId);
    });
    deps.counters.flush?.();
    if (failures.length > 0)
      deps.log.info('sync batch with retries', { received: event.Records.length, retrying: failures.length });
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/** True when the message is done with (pushed, nothing to do, or dead-lettered). */
async function handle(deps: SyncWorkerDeps, record: SQSRecord): Promise<boolean> {
  let message: SyncMessage;
  try {
    message = parseSyncMessage(record.body);
  } catch (error) {
    await deps.queue.deadLetter(record.body, { provider: 'unknown', error: (error as Error).message });
    return true;
  }
  const now = deps.push.now();
  try {
    const result = await pushChange(deps.push, message);
    if (result.pushed.length > 0) {
      deps.counters.count(SYNC_METRICS.pushed, result.pushed.length, message.provider);
      await deps.succeeded?.(message.provider, deps.push.now()).catch(() => undefined);
    }
    return true;
  } catch (error) {
    const reason = describe(error);
    const firstAttempt = Number(record.attributes.SentTimestamp ?? now);
    if (error instanceof SyncRefusedError || exhausted(firstAttempt, now, deps.retryHorizonMs)) {
      try {
        await markDead(deps.push, message, reason);
        await deps.queue.deadLetter(record.body, { provider: message.provider, error: reason });
      } catch (cause) {
        deps.log.error('sync dead-letter failed', { provider: message.provider, error: describe(cause) });
        return false;
      }
      deps.counters.count(SYNC_METRICS.failed, 1, message.provider);
      deps.log.error('sync change dead-lettered', { provider: message.provider, error: reason });
      return true;
    }
    const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
    const seconds =
      error instanceof SyncRateLimitedError
        ? pauseSeconds(error.retryAtMs, now)
        : backoffSeconds(receives, (deps.random ?? Math.random)());
    deps.counters.count(SYNC_METRICS.retried, 1, message.provider);
    deps.log.debug?.('sync push will be retried', { provider: message.provider, inSeconds: seconds, error: reason });
    try {
      await deps.queue.hide(record.receiptHandle, seconds);
      await extendLease(deps.push, message.email, now + seconds * 1000 + LEASE_GRACE_MS);
    } catch (cause) {
      deps.log.warn('sync retry scheduling failed', { provider: message.provider, error: describe(cause) });
    }
    return false;
  }
}

/** The error's class and message, never more: adapters keep keys out of their messages, and no request or header is logged. */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return String(error).slice(0, 300);
}
