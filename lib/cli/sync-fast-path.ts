/**
 * The CLI's own writes (`suppressions add|reactivate|import`, `sync reconcile --apply`) send the sync
 * fast path too when they know the sync queue: SYNC_QUEUE_URL (stack outputs) or the running `npm
 * start`'s, and SYNC_PROVIDERS or that runtime's providers. Without them nothing is lost: the write
 * put the change in the outbox, and the sweeper sends it within a couple of minutes.
 */
import { resolve } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsSyncQueue } from '../../lambdas/adapters/sqs-sync-queue.js';
import { parseSyncProviders } from '../../lambdas/core/sync/settings.js';
import { readState } from '../local/state.js';
import type { Target } from './target.js';

export function cliSyncFastPath(
  env: Record<string, string | undefined>,
  target: Target,
  sqs: () => SQSClient,
): ((email: string) => Promise<void>) | undefined {
  const state = target.kind === 'local' ? readState(resolve(env.RATCHET_DATA_DIR ?? '.data')) : undefined;
  const queueUrl = env.SYNC_QUEUE_URL ?? state?.syncQueueUrl;
  const providers = env.SYNC_PROVIDERS
    ? parseSyncProviders(env.SYNC_PROVIDERS)
    : parseSyncProviders(state?.syncProviders?.join(','));
  if (!queueUrl || providers.length === 0) return undefined;
  return async (email) => {
    await new SqsSyncQueue(sqs(), () => queueUrl)
      .send(providers.map((provider) => ({ email, provider })))
      .catch(() => undefined);
  };
}
