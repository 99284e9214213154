/**
 * The sync settings a CLI command checks before it reads, writes, moves or pushes anything. The CLI
 * reads the same variables as `npm start`, so a sync variable set to a value `npm start` refuses
 * (SYNC_PROVIDERS, SYNC_<PROVIDER>_RATE and _CONCURRENCY, SYNC_RETRY_SECONDS, TOPIC_ALIASES, SYNC_QUEUE_URL and
 * SYNC_DEAD_LETTER_QUEUE_URL, and the listed providers' POSTMARK_STREAMS, MAILGUN_DOMAINS, *_API_URL) is a SettingError: exit 2, with the
 * runtime's own line naming the variable. A missing key or required setting is one only for a command
 * that calls the providers (`sync reconcile`): the others never need the keys, which on AWS live in
 * Secrets Manager, so an operator there sets SYNC_PROVIDERS and nothing else.
 */
import { checkNames } from '../../lambdas/adapters/environment.js';
import { readSyncConfig, type SyncConfig } from '../../lambdas/adapters/sync/index.js';
import { SYNC_QUEUE_VARIABLES } from '../../lambdas/adapters/wiring/sync-fast-path.js';
import { type SyncSettings, syncSettings } from '../../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../../lambdas/core/sync/target.js';
import { parseTopicAliases, type TopicAliases } from '../../lambdas/core/topics.js';
import { SettingError } from './target.js';

export interface CheckedSyncSettings {
  /** The listed providers' settings (keys empty when `callsProviders` is false and they are unset). */
  config: SyncConfig;
  aliases: TopicAliases;
  /** Each provider's limits (SYNC_<PROVIDER>_RATE and _CONCURRENCY, or their defaults). */
  limits: SyncSettings['limits'];
}

export function checkSyncSettings(
  env: Record<string, string | undefined>,
  providers: readonly SyncProviderName[],
  options: { callsProviders: boolean },
): CheckedSyncSettings {
  // The providers the command works on (`--provider` may name one SYNC_PROVIDERS does not list).
  const listed = { ...env, SYNC_PROVIDERS: providers.join(',') };
  let aliases: TopicAliases;
  let limits: SyncSettings['limits'];
  try {
    limits = syncSettings(listed).limits;
    aliases = parseTopicAliases(env.TOPIC_ALIASES);
  } catch (error) {
    throw new SettingError((error as Error).message);
  }
  // The sync queue's URLs, where the CLI sends the fast path, moves dead letters and counts the backlog.
  const urls = checkNames(env, [SYNC_QUEUE_VARIABLES.queueUrl, SYNC_QUEUE_VARIABLES.deadLetterUrl]);
  if (urls.length > 0) throw new SettingError(urls.join('; '));
  const result = readSyncConfig(listed, { requireSet: options.callsProviders });
  if (!result.ok) throw new SettingError(result.problems.join('; '));
  return { config: result.config, aliases, limits };
}
