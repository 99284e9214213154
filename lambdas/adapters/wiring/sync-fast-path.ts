/**
 * The consumer's half of sync, kept apart so the consumer bundle loads only this: after a write that
 * put a sync change in the outbox, one message per configured provider on the sync queue.
 */

import type { Counters, Log } from '../../core/pipeline/ports.js';
import { syncSettings } from '../../core/sync/settings.js';
import { RUNTIME_VARIABLE } from '../environment.js';
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

export function syncQueuesFromEnv(settings: RuntimeConfig['settings']): SyncQueues | undefined {
  const queueUrl = settings[SYNC_QUEUE_VARIABLES.queueUrl];
  const deadLetterUrl = settings[SYNC_QUEUE_VARIABLES.deadLetterUrl];
  if (!queueUrl) return undefined;
  return { queueUrl: () => queueUrl, deadLetterUrl: () => deadLetterUrl ?? '' };
}

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
): ((email: string) => Promise<void>) | undefined {
  const { providers } = syncSettings(config.settings);
  if (providers.length === 0 || queues === undefined) return undefined;
  const queue = new SqsSyncQueue(clients.sqs, queues.queueUrl);
  return async (email) => {
    try {
      await queue.send(providers.map((provider) => ({ email, provider })));
    } catch (error) {
      // No address in the log: the marker in the suppression table names it, and the sweeper sends it.
      observers.log.warn('sync fast path failed; the sweeper will send it', {
        providers,
        error: String((error as Error)?.message ?? error),
      });
      for (const provider of providers) observers.counters.count(SYNC_FAST_PATH_FAILED, 1, provider);
    }
  };
}
