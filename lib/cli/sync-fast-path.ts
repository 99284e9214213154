/**
 * The CLI's own writes (`suppressions add|reactivate|import`, `sync reconcile --apply`) send the sync
 * fast path too, so a reversal reaches the providers in seconds, not at the next sweep. The sync queue
 * is found as the target finds the events queue (lib/cli/target.ts): SYNC_QUEUE_URL (stack output
 * `SyncQueueUrl`), the running `npm start`'s, or its name (SYNC_QUEUE_NAME, default `ratchet-sync`,
 * the stack's `<prefix>-sync`) looked up on SQS_ENDPOINT or AWS. The providers are SYNC_PROVIDERS, else
 * the running `npm start`'s. With neither, sync is off and nothing is sent. With sync on, a sync setting
 * set wrong is a SettingError before anything is written (lib/cli/sync-settings.ts). A send that fails loses
 * nothing: the write put the change in the outbox, and the sweeper sends it within a couple of minutes.
 * The operator is told once per command, naming the queue: an import of a million rows against a queue
 * that is not there must neither print a million warnings nor look the name up a million times.
 */
import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SqsSyncQueue } from '../../lambdas/adapters/sqs-sync-queue.js';
import { parseSyncProviders } from '../../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../../lambdas/core/sync/target.js';
import { SYNC_QUEUE } from '../sync-definitions.js';
import { checkSyncSettings } from './sync-settings.js';
import { rootCause, SettingError, type Target } from './target.js';

/** SYNC_PROVIDERS, else the running local stack's; empty when sync is off. A SYNC_PROVIDERS that does not parse is a SettingError (exit 2). */
export function cliSyncProviders(env: Record<string, string | undefined>, target: Target): SyncProviderName[] {
  if (env.SYNC_PROVIDERS?.trim()) {
    try {
      return parseSyncProviders(env.SYNC_PROVIDERS);
    } catch (error) {
      throw new SettingError((error as Error).message);
    }
  }
  return parseSyncProviders(target.syncProviders?.join(','));
}

/** The sync queue's and its dead letters' URLs, looked up by name when only the name is known (once). */
export function syncQueueUrls(target: Target, sqs: () => SQSClient) {
  const lookup = (name: string) => async () =>
    (await sqs().send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl ??
    Promise.reject(new Error(`no queue named ${name}`));
  const name = target.syncQueueName;
  // One lookup per command, shared by every send; a failed one is tried again by the next send.
  const once = <T>(f: () => Promise<T>) => {
    let pending: Promise<T> | undefined;
    return () => {
      pending ??= f().catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    };
  };
  const dead = target.syncDeadLetterUrl ?? (name ? `${name}${SYNC_QUEUE.deadLetterSuffix}` : undefined);
  return {
    /** The dead letters' name when it is looked up (for messages). */
    deadLetterName: target.syncDeadLetterUrl ? undefined : dead,
    queueUrl: target.syncQueueUrl ? () => Promise.resolve(target.syncQueueUrl!) : name ? once(lookup(name)) : undefined,
    deadLetterUrl: target.syncDeadLetterUrl
      ? () => Promise.resolve(target.syncDeadLetterUrl!)
      : dead
        ? once(lookup(dead))
        : undefined,
  };
}

/** Where a queue name is looked up: the SQS endpoint, or AWS. */
export function sqsWhere(target: Target): string {
  return target.sqsEndpoint ? `SQS_ENDPOINT ${target.sqsEndpoint}` : `AWS ${target.region}`;
}

export function cliSyncFastPath(
  env: Record<string, string | undefined>,
  target: Target,
  sqs: () => SQSClient,
  warn: (line: string) => void = () => {},
): ((email: string) => Promise<void>) | undefined {
  const providers = cliSyncProviders(env, target);
  // A sync setting set wrong is refused (exit 2) before the command writes anything.
  if (providers.length > 0) checkSyncSettings(env, providers, { callsProviders: false });
  const { queueUrl } = syncQueueUrls(target, sqs);
  if (!queueUrl || providers.length === 0) return undefined;
  // Looked up once for the whole command: a queue that is not there now will not appear mid-import.
  let url: Promise<string> | undefined;
  const queue = new SqsSyncQueue(sqs(), () => (url ??= queueUrl()));
  const named = target.syncQueueUrl ?? `${target.syncQueueName} on ${sqsWhere(target)}`;
  let warned = false;
  return async (email) => {
    await queue.send(providers.map((provider) => ({ email, provider }))).catch((error: unknown) => {
      if (warned) return;
      warned = true;
      warn(
        `warning: the sync queue ${named} did not take a change (${rootCause(error).split('\n')[0]}): the sweeper sends the changes within a couple of minutes if sync is on; set SYNC_QUEUE_URL (stack output SyncQueueUrl) to send them at once (said once per command)`,
      );
    });
  };
}
