/**
 * The sync props (CDK context `syncProviders`, `postmarkStreams`, `mailgunDomains`, `syncRates`,
 * `syncConcurrency`, `syncRetrySeconds`; lib/context-keys.ts reads them): unset `syncProviders`, no sync and
 * no sync resources. `cdk synth` refuses what `npm start` refuses, with the same
 * one-line problems from the adapters' own reader; the keys themselves live in Secrets Manager, so
 * the check stands them in with a placeholder (a missing key is the worker's to report, at run time).
 */
import { readSyncConfig } from '../lambdas/adapters/sync/index.js';
import { SYNC_KEY_VARIABLE } from '../lambdas/adapters/wiring/sync-secrets.js';
import { parseNumber } from '../lambdas/core/settings.js';
import { DEFAULT_RETRY_HORIZON_SECONDS, parseSyncProviders, SYNC_RULES } from '../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../lambdas/core/sync/target.js';
import { ContextError } from './context-values.js';
import { resolveSyncLimits, type SyncLimitProps, type SyncLimits } from './sync-limits.js';

export interface SyncContext {
  readonly providers: readonly SyncProviderName[];
  readonly postmarkStreams?: readonly string[];
  readonly mailgunDomains?: readonly string[];
  /** Each copy's share of `syncRates` and `syncConcurrency`, and what they add up to (lib/sync-limits.ts). */
  readonly limits: SyncLimits;
  /** `syncRetrySeconds`, checked; undefined: the worker's default (SYNC_RETRY_SECONDS unset). */
  readonly retrySeconds?: number;
}

/** The sync props as CDK context gives them, key for key (the construct checks them: resolveSync). */
export interface SyncProps extends SyncLimitProps {
  /** Providers to push suppressions to. @default - none: nothing is synced and no sync resources exist */
  readonly syncProviders?: readonly string[];
  /** Postmark message streams a global suppression goes to. @default ['outbound'] */
  readonly postmarkStreams?: readonly string[];
  /** Mailgun sending domains; required with mailgun. @default - none */
  readonly mailgunDomains?: readonly string[];
  /**
   * How long the worker retries a change after its first counted failure (a 5xx, a timeout) before it is
   * dead-lettered, in whole seconds from 1 to 86400 (`SYNC_RETRY_SECONDS` on the worker); waiting on a 429 never counts.
   * @default 3600 (DEFAULT_RETRY_HORIZON_SECONDS)
   */
  readonly syncRetrySeconds?: number;
}

/** The context key (and prop) for SYNC_RETRY_SECONDS. */
export const SYNC_RETRY_KEY = 'syncRetrySeconds';

/**
 * `syncRetrySeconds` as context or code gives it (a string from `-c`, a number from cdk.json or a prop),
 * checked with the worker's own rule (SYNC_RULES.retryHorizonSeconds), so synth refuses what the worker's
 * cold start would; unset (undefined, null, blank) is undefined. Throws a ContextError naming the key.
 */
export function readRetrySeconds(value: unknown): number | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  const name = `context ${SYNC_RETRY_KEY}`;
  const rule = { default: DEFAULT_RETRY_HORIZON_SECONDS, ...SYNC_RULES.retryHorizonSeconds };
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new ContextError(`${name} must be ${rule.expected}, got ${JSON.stringify(value)}`);
  try {
    return parseNumber(name, String(value), rule);
  } catch (error) {
    throw new ContextError((error as Error).message);
  }
}

/** The sync configuration, or undefined when no provider is listed; throws the problems `npm start` would give. */
export function resolveSync(props: SyncProps): SyncContext | undefined {
  let providers: SyncProviderName[];
  try {
    providers = parseSyncProviders(props.syncProviders?.join(','), 'context syncProviders');
  } catch (error) {
    throw new ContextError((error as Error).message);
  }
  // Before the early return: a rate for a provider sync does not push to is a mistake, not a no-op.
  const limits = resolveSyncLimits(props, providers);
  const retrySeconds = readRetrySeconds(props.syncRetrySeconds);
  if (retrySeconds !== undefined && providers.length === 0)
    throw new ContextError(
      `context ${SYNC_RETRY_KEY} is set, but context syncProviders lists no provider: nothing is synced`,
    );
  if (providers.length === 0) return undefined;
  const { postmarkStreams, mailgunDomains } = props;
  const env: Record<string, string> = { SYNC_PROVIDERS: providers.join(','), AWS_REGION: 'us-east-1' };
  for (const provider of providers) {
    const variable = SYNC_KEY_VARIABLE[provider];
    if (variable) env[variable] = 'in-secrets-manager';
  }
  if (postmarkStreams) env.POSTMARK_STREAMS = postmarkStreams.join(',');
  if (mailgunDomains) env.MAILGUN_DOMAINS = mailgunDomains.join(',');
  const result = readSyncConfig(env);
  if (!result.ok) {
    // Name the context key beside the variable, since that is what a CDK user sets.
    const keyOf: Record<string, string> = { MAILGUN_DOMAINS: 'mailgunDomains', POSTMARK_STREAMS: 'postmarkStreams' };
    throw new ContextError(
      result.problems
        .map((line) => line.replace(/\b(MAILGUN_DOMAINS|POSTMARK_STREAMS)\b/, (v) => `context ${keyOf[v]} (${v})`))
        .join('\n'),
    );
  }
  return {
    providers,
    limits,
    ...(retrySeconds !== undefined ? { retrySeconds } : {}),
    ...(postmarkStreams ? { postmarkStreams } : {}),
    ...(mailgunDomains ? { mailgunDomains } : {}),
  };
}
