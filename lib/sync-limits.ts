/**
 * CDK context `syncRates` and `syncConcurrency` (`sendgrid=50,ses=14`): each provider's limits for the whole
 * stack, the figures a provider's documentation or account page gives (calls a second, calls in flight).
 *
 * The worker paces each provider with an in-process gate (SYNC_<PROVIDER>_RATE, _CONCURRENCY), and the
 * sync queue's event source runs up to SYNC_WORKER.maxConcurrency copies of it, each with its own gate.
 * So the stack gives every copy an equal share, rounded down (rates to a thousandth of a call a second,
 * calls in flight to a whole number): all copies together never exceed the figure given. A figure whose
 * share rounds to 0 is refused. The shares are checked with the parser the worker itself starts with.
 */

import { type NumberRule, parseNumber } from '../lambdas/core/settings.js';
import {
  listedLimitProvider,
  type ProviderLimits,
  parseProviderValues,
  SYNC_DEFAULT_LIMITS,
  SYNC_RULES,
  SYNC_VARIABLES,
  syncSettings,
} from '../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../lambdas/core/sync/target.js';
import { ContextError } from './context-values.js';
import { SYNC_WORKER } from './sync-definitions.js';

/** The copies a stack-wide figure is shared between: the worker's event source MaximumConcurrency. */
export const SYNC_WORKER_COPIES = SYNC_WORKER.maxConcurrency;
/** Shares of a rate are kept to this fraction of a call a second. */
export const RATE_STEP = 0.001;

export const SYNC_LIMIT_KEYS = { rate: 'syncRates', concurrency: 'syncConcurrency' } as const;
type Limit = keyof typeof SYNC_LIMIT_KEYS;

/** What each stack-wide figure accepts: the per-copy rule (SYNC_RULES) times the copies. */
export const STACK_LIMIT_RULES: Record<Limit, Omit<NumberRule, 'default'>> = {
  rate: {
    expected: `calls per second for the whole stack, more than 0 and at most ${SYNC_RULES.rate.max * SYNC_WORKER_COPIES}`,
    min: 0,
    exclusiveMin: true,
    max: SYNC_RULES.rate.max * SYNC_WORKER_COPIES,
  },
  concurrency: {
    expected: `a whole number of calls in flight for the whole stack from ${SYNC_RULES.concurrency.min * SYNC_WORKER_COPIES} (one per worker copy) to ${SYNC_RULES.concurrency.max * SYNC_WORKER_COPIES}`,
    min: SYNC_RULES.concurrency.min * SYNC_WORKER_COPIES,
    max: SYNC_RULES.concurrency.max * SYNC_WORKER_COPIES,
    integer: true,
  },
};

/** The sync limit props as CDK context gives them, key for key. */
export interface SyncLimitProps {
  /**
   * Calls a second each provider takes from the whole stack, `provider=rate` pairs: `['sendgrid=50', 'ses=14']`
   * (in context the comma list `sendgrid=50,ses=14`), the rate the provider's account allows. Each of the
   * worker's copies (SYNC_WORKER.maxConcurrency) gets an equal share, rounded down to 0.001, as
   * `SYNC_<PROVIDER>_RATE`. Only providers `syncProviders` lists.
   * @default - each provider's default per copy (SYNC_DEFAULT_LIMITS) on every copy
   */
  readonly syncRates?: readonly string[];
  /**
   * Calls in flight to each provider from the whole stack, `provider=calls` pairs (`['sendgrid=16']`), shared
   * between the worker's copies as `SYNC_<PROVIDER>_CONCURRENCY`, rounded down; at least one per copy.
   * @default - each provider's default per copy (SYNC_DEFAULT_LIMITS) on every copy
   */
  readonly syncConcurrency?: readonly string[];
}

export interface SyncLimits {
  /** What each copy of the worker (and the sweeper, which sizes leases and the backfill by them) is given. */
  readonly variables: Readonly<Record<string, string>>;
  /** Every listed provider's limits for the whole stack, what the shares add up to (defaults included). */
  readonly stack: Readonly<Partial<Record<SyncProviderName, ProviderLimits>>>;
}

/** Splits the stack-wide figures over the copies; throws a ContextError with the problem, naming the key. */
export function resolveSyncLimits(props: SyncLimitProps, providers: readonly SyncProviderName[]): SyncLimits {
  const variables: Record<string, string> = {};
  for (const limit of ['rate', 'concurrency'] as const) {
    const key = SYNC_LIMIT_KEYS[limit];
    const given = contextError(() => parseProviderValues(props[key]?.join(','), `context ${key}`));
    for (const [provider, text] of given) {
      // The rule npm start applies to SYNC_<PROVIDER>_RATE and _CONCURRENCY, worded the same.
      contextError(() => listedLimitProvider(provider, providers, `context ${key}`, 'context syncProviders'));
      const value = contextError(() =>
        parseNumber(`context ${key}: ${provider}`, text, { default: 0, ...STACK_LIMIT_RULES[limit] }),
      );
      variables[SYNC_VARIABLES[limit](provider)] = String(share(key, provider, limit, value));
    }
  }
  // The worker's own parse of what it will be given: a share it would refuse never deploys.
  const settings = contextError(() => syncSettings({ ...variables, [SYNC_VARIABLES.providers]: providers.join(',') }));
  const stack: Partial<Record<SyncProviderName, ProviderLimits>> = {};
  for (const provider of providers) {
    const { rate, concurrency } = settings.limits[provider];
    stack[provider] = { rate: roundRate(rate * SYNC_WORKER_COPIES), concurrency: concurrency * SYNC_WORKER_COPIES };
  }
  return { variables, stack };
}

/** `provider=value` pairs, in the form the context takes: an output an operator can paste back. */
export function formatProviderValues(
  stack: SyncLimits['stack'],
  limit: Limit,
  providers: readonly SyncProviderName[],
): string {
  return providers.map((p) => `${p}=${stack[p]![limit]}`).join(',');
}

/** The defaults, for the stack as a whole: what a deployment without the keys gets. */
export function stackDefault(provider: SyncProviderName): ProviderLimits {
  const d = SYNC_DEFAULT_LIMITS[provider];
  return { rate: roundRate(d.rate * SYNC_WORKER_COPIES), concurrency: d.concurrency * SYNC_WORKER_COPIES };
}

function share(key: string, provider: SyncProviderName, limit: Limit, value: number): number {
  if (limit === 'concurrency') return Math.floor(value / SYNC_WORKER_COPIES);
  const steps = Math.floor(Number((value / RATE_STEP / SYNC_WORKER_COPIES).toFixed(6)));
  if (steps < 1) {
    throw new ContextError(
      `context ${key}: ${provider}=${value} leaves each of the ${SYNC_WORKER_COPIES} worker copies 0 calls a second (${SYNC_VARIABLES.rate(provider)} is kept to ${RATE_STEP}): give at least ${roundRate(RATE_STEP * SYNC_WORKER_COPIES)}`,
    );
  }
  return roundRate(steps * RATE_STEP);
}

const roundRate = (rate: number): number => Number(rate.toFixed(3));

function contextError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ContextError) throw error;
    throw new ContextError((error as Error).message);
  }
}
