/**
 * SQS batch → one push per message, all at once, with partial batch failures. Each provider's gate
 * limits its own calls, and hands back a call it would hold past SYNC_MAX_HOLD_MS (sent again, delayed
 * until the turn reserved for it, as a wait; or, with no turn within SYNC_BOOKING_HORIZON_MS, left on its
 * outbox marker for the sweeper): a batch ends with its slowest call, so neither a failing nor a slow
 * provider holds up the others (docs/sync.md, rate limits). A failure is retried by hiding the message
 * until its next attempt. The same handler runs in Lambda and under the local poller.
 *
 * Waiting is not failing. A 429, a provider's reset header and the shared pause (the gate refusing
 * without calling) send the message again fresh, delayed until the time named, and count for nothing:
 * they never dead-letter. Only a 5xx, a network error or a timeout counts: the change is dead-lettered once its
 * first counted failure at that provider (kept on the record, core/sync/push.ts recordRetry), moved
 * forward by every wait since (recordWait), is older than the retry horizon. A refusal (any other 4xx)
 * is dead-lettered at once.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Counters, Log } from '../core/pipeline/ports.js';
import { leased } from '../core/sync/lease.js';
import { encodeSyncMessage, parseSyncMessage, type SyncMessage } from '../core/sync/message.js';
import { markDead, type PushDeps, pushChange, recordDeferral, recordRetry, recordWait } from '../core/sync/push.js';
import { backoffSeconds, pauseSeconds } from '../core/sync/retry.js';
import {
  SyncProviderBacklogError,
  SyncProviderBusyError,
  type SyncProviderName,
  SyncRateLimitedError,
  SyncRefusedError,
} from '../core/sync/target.js';

export const SYNC_METRICS = { pushed: 'SyncPushed', failed: 'SyncFailed', retried: 'SyncRetried' } as const;

/** The sweeper leaves a waiting message alone until this long after its next attempt is due. */
const LEASE_GRACE_MS = 60_000;

export interface SyncWorkerDeps {
  push: PushDeps;
  queue: {
    hide(receiptHandle: string, seconds: number): Promise<void>;
    /** The same body as a new message, delivered after `delaySeconds` (at most SQS's 15 minutes). */
    resend(body: string, delaySeconds: number): Promise<void>;
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
    // One chain per address: its providers' messages run one after the other (each commit sees the
    // last, so none conflicts and re-reads), while different addresses run side by side.
    const chains = new Map<string, Promise<unknown>>();
    const results = await Promise.all(
      event.Records.map((record) => {
        const key = addressOf(record.body);
        const run = (chains.get(key) ?? Promise.resolve()).then(() => handle(deps, record));
        chains.set(key, run);
        return run;
      }),
    );
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
  const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
  let attempt: SyncMessage = message;
  try {
    // A redelivery may follow a push the provider applied and this worker never recorded: ask first.
    attempt = receives > 1 ? { ...message, recheck: true } : message;
    const result = await pushChange(deps.push, attempt);
    if (result.pushed.length > 0) deps.counters.count(SYNC_METRICS.pushed, result.pushed.length, message.provider);
    if (result.pushed.length > 0 || (result.found?.length ?? 0) > 0)
      await deps.succeeded?.(message.provider, deps.push.now()).catch(() => undefined);
    return true;
  } catch (error) {
    const reason = describe(error);
    if (error instanceof SyncRefusedError) return deadLetter(deps, record, message, reason);
    // This worker's pace for the provider is spoken for: not a retry, and the batch does not wait for it.
    if (error instanceof SyncProviderBacklogError) return defer(deps, attempt, error.retryAtMs, reason);
    if (error instanceof SyncProviderBusyError)
      return wait(deps, { ...attempt, turn: error.retryAtMs }, pauseSeconds(error.retryAtMs, now), reason);
    deps.counters.count(SYNC_METRICS.retried, 1, message.provider);
    if (error instanceof SyncRateLimitedError) {
      const seconds = pauseSeconds(error.retryAtMs, now);
      return wait(deps, withoutTurn(attempt), seconds, reason);
    }
    const seconds = backoffSeconds(receives, (deps.random ?? Math.random)());
    let outcome: 'dead' | 'retry' = 'retry';
    try {
      outcome = await recordRetry(deps.push, message, now, {
        horizonMs: deps.retryHorizonMs,
        leaseUntil: leased(now + seconds * 1000 + LEASE_GRACE_MS),
      });
    } catch (cause) {
      deps.log.warn('sync retry scheduling failed', { provider: message.provider, error: describe(cause) });
    }
    if (outcome === 'dead') return deadLetter(deps, record, message, reason);
    deps.log.debug?.('sync push will be retried', { provider: message.provider, inSeconds: seconds, error: reason });
    await deps.queue
      .hide(record.receiptHandle, seconds)
      .catch((cause: unknown) =>
        deps.log.warn('sync retry scheduling failed', { provider: message.provider, error: describe(cause) }),
      );
    return false;
  }
}

/**
 * A wait: the same message sent again fresh, delayed until the pause ends (SQS delays at most 15
 * minutes; a longer pause waits again), the lease moved past it, never dead-lettered. Fresh rather than
 * hidden, so its receive count stays 1: a redelivery asks the provider before pushing (a lost push may
 * lie behind it), and a wait is known to have pushed nothing, so asking would only double the calls of
 * a 429 storm. A message that was already asking (`recheck`) keeps asking. Fresh also keeps a long storm
 * clear of the queue's redrive policy (maxReceiveCount, lib/sync-definitions.ts).
 */
async function wait(deps: SyncWorkerDeps, attempt: SyncMessage, seconds: number, reason: string): Promise<boolean> {
  deps.log.debug?.('sync push waits for the provider', {
    provider: attempt.provider,
    inSeconds: seconds,
    error: reason,
  });
  try {
    const waitMs = seconds * 1000;
    await recordWait(deps.push, attempt, { waitMs, leaseUntil: leased(deps.push.now() + waitMs + LEASE_GRACE_MS) });
    await deps.queue.resend(encodeSyncMessage(attempt), seconds);
    return true;
  } catch (cause) {
    // The message stays: it comes back after its visibility timeout, as a redelivery that asks first.
    deps.log.warn('sync retry scheduling failed', { provider: attempt.provider, error: describe(cause) });
    return false;
  }
}

/**
 * A wait in the outbox: the provider's slots are reserved past what a queue delay reaches, so the change
 * waits on its marker (recordDeferral) and the sweeper sends it again when due; the message is done. A
 * record with no live marker has no sweep coming, so its message goes round the queue instead.
 */
async function defer(deps: SyncWorkerDeps, attempt: SyncMessage, untilMs: number, reason: string): Promise<boolean> {
  const now = deps.push.now();
  try {
    if (await recordDeferral(deps.push, attempt, { waitMs: Math.max(0, untilMs - now), dueAt: untilMs })) {
      deps.log.debug?.('sync push waits in the outbox', { provider: attempt.provider, untilMs });
      return true;
    }
  } catch (cause) {
    // The message stays: it comes back after its visibility timeout, as a redelivery that asks first.
    deps.log.warn('sync retry scheduling failed', { provider: attempt.provider, error: describe(cause) });
    return false;
  }
  return wait(deps, withoutTurn(attempt), pauseSeconds(untilMs, now), reason);
}

/** A turn is a slot one gate reserved; after a pause or a failure it is spent. */
function withoutTurn({ turn: _turn, ...message }: SyncMessage): SyncMessage {
  return message;
}

async function deadLetter(
  deps: SyncWorkerDeps,
  record: SQSRecord,
  message: SyncMessage,
  reason: string,
): Promise<boolean> {
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

/** The message's address for grouping; a malformed body is a group of its own (it is dead-lettered anyway). */
function addressOf(body: string): string {
  try {
    return parseSyncMessage(body).email;
  } catch {
    return `\u0000${body}`;
  }
}

/** The error's class and message, never more: adapters keep keys out of their messages, and no request or header is logged. */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return String(error).slice(0, 300);
}
