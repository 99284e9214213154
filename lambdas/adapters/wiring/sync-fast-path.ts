/**
 * The consumer's half of sync, kept apart so the consumer bundle loads only this: after a write that
 * put a sync change in the outbox, one message per configured provider on the sync queue, the messages
 * of changes written within a few milliseconds of each other sent together (SendMessageBatch, ten a request).
 */

import type { Counters, Log } from '../../core/pipeline/ports.js';
import { type SyncMessage, SyncSendError } from '../../core/sync/message.js';
import { syncSettings } from '../../core/sync/settings.js';
import { coalescing } from '../coalesce.js';
import { checkNames, RUNTIME_VARIABLE } from '../environment.js';
import { SQS_BATCH_MAX } from '../sqs-limits.js';
import { SqsSyncQueue } from '../sqs-sync-queue.js';
import type { Clients, RuntimeConfig } from './config.js';

/** Where the sync queue and its dead letters are: URLs on AWS, resolvers locally (learned from CreateQueue). */
export interface SyncQueues {
  queueUrl: () => Promise<string> | string;
  deadLetterUrl: () => Promise<string> | string;
}

export const SYNC_QUEUE_VARIABLES = {
  queueUrl: RUNTIME_VARIABLE.syncQueueUrl,
  deadLetterUrl: RUNTIME_VARIABLE.syncDeadLetterQueueUrl,
} as const;

/** The sync queues from the environment; undefined when unset. Throws, naming it, on one that is no queue URL. */
export function syncQueuesFromEnv(settings: RuntimeConfig['settings']): SyncQueues | undefined {
  const problems = checkNames(settings, [SYNC_QUEUE_VARIABLES.queueUrl, SYNC_QUEUE_VARIABLES.deadLetterUrl]);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const queueUrl = settings[SYNC_QUEUE_VARIABLES.queueUrl];
  const deadLetterUrl = settings[SYNC_QUEUE_VARIABLES.deadLetterUrl];
  if (!queueUrl) return undefined;
  return { queueUrl: () => queueUrl, deadLetterUrl: () => deadLetterUrl ?? '' };
}

/**
 * How long a fast-path batch waits for more changes, ms. A consumer batch's records are applied side by
 * side and their writes land within a few ms of each other, so this lets them share one SendMessageBatch
 * (ten messages a request). The wait is inside the write, so inside the invocation: nothing is left to
 * send after the handler returns. 5 ms is nothing beside a sync change's seconds.
 */
export const FAST_PATH_WINDOW_MS = 5;

/**
 * The longest a fast-path send may take, ms. The send waits inside the write, so a call to a queue that
 * accepted the connection and never answered would hold the consumer's batch until the function timed
 * out (30 s) and the whole batch came back. Past this it is a failed send like any other: logged,
 * counted, and left to the sweeper. The batch's records run side by side, so their sends wait together:
 * a batch loses at most this much. SQS answers a SendMessageBatch in milliseconds.
 */
export const FAST_PATH_TIMEOUT_MS = 5_000;

/** Counted once per provider whose message the fast path could not send (dimension: that provider). */
export const SYNC_FAST_PATH_FAILED = 'SyncFastPathFailed';

/** Where a failed send is told: the handler's own log and counters (flushed with its invocation). */
export interface FastPathObservers {
  readonly log: Log;
  readonly counters: Counters;
}

/**
 * The consumer's fast path: after a write that put a sync change in the outbox, one message per
 * configured provider. Undefined when sync is off. A failed send never fails the write: it is logged
 * and counted (SyncFastPathFailed, per provider), and the sweeper finds the marker within a minute or two.
 */
export function syncFastPath(
  config: RuntimeConfig,
  clients: Pick<Clients, 'sqs'>,
  queues: SyncQueues | undefined,
  observers: FastPathObservers,
  options: {
    /** @default FAST_PATH_TIMEOUT_MS */
    timeoutMs?: number;
  } = {},
): ((email: string) => Promise<void>) | undefined {
  const { providers } = syncSettings(config.settings);
  if (providers.length === 0 || queues === undefined) return undefined;
  const queue = new SqsSyncQueue(clients.sqs, queues.queueUrl);
  // Changes written together (a consumer batch's records run side by side) share one SendMessageBatch.
  const send = coalescing<SyncMessage>(
    async (messages) => {
      try {
        await queue.send(messages, { abortSignal: AbortSignal.timeout(options.timeoutMs ?? FAST_PATH_TIMEOUT_MS) });
      } catch (error) {
        // Once per failed batch, with no address: the markers in the suppression table name them, and the sweeper sends them.
        // Only what SQS did not take: a partly refused batch queued the rest.
        const unsent = error instanceof SyncSendError ? error.unsent : messages;
        observers.log.warn('sync fast path failed; the sweeper will send it', {
          providers,
          messages: unsent.length,
          error: String((error as Error)?.message ?? error),
        });
        for (const message of unsent) observers.counters.count(SYNC_FAST_PATH_FAILED, 1, message.provider);
      }
    },
    { max: SQS_BATCH_MAX, windowMs: FAST_PATH_WINDOW_MS },
  );
  return async (email) => {
    await Promise.all(providers.map((provider) => send({ email, provider })));
  };
}
