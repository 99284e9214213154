/**
 * The sync settings the worker reads, spelled where they are parsed: which providers (SYNC_PROVIDERS),
 * how hard to drive each one, and how long a change is retried before it is dead-lettered. Pure.
 * (Credentials and per-provider settings such as POSTMARK_STREAMS belong to the adapters' own reader.)
 */
import { numberFromSettings, type Settings } from '../settings.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from './target.js';

export const SYNC_VARIABLES = {
  providers: 'SYNC_PROVIDERS',
  retryHorizonSeconds: 'SYNC_RETRY_SECONDS',
  concurrency: (provider: SyncProviderName) => `SYNC_${provider.toUpperCase()}_CONCURRENCY`,
  rate: (provider: SyncProviderName) => `SYNC_${provider.toUpperCase()}_RATE`,
} as const;

/**
 * Per worker: calls in flight and calls per second. Conservative, below every published limit
 * (Resend documents 2 requests/s per team; SendGrid's and Mailgun's are per endpoint and larger; SES
 * publishes none for the suppression API and answers 429). On AWS the worker's event source runs at
 * most SYNC_WORKER.maxConcurrency copies, so the account-wide rate is that many times these, unless CDK
 * context `syncRates`/`syncConcurrency` sets a stack-wide figure, which the stack shares between the copies
 * (lib/sync-limits.ts).
 */
export const SYNC_DEFAULT_LIMITS: Readonly<Record<SyncProviderName, { concurrency: number; rate: number }>> = {
  ses: { concurrency: 4, rate: 5 },
  sendgrid: { concurrency: 4, rate: 10 },
  postmark: { concurrency: 4, rate: 10 },
  mailgun: { concurrency: 4, rate: 10 },
  resend: { concurrency: 1, rate: 1 },
};

/**
 * The longest the worker holds a call for its provider's rate slot. A later slot hands the message back,
 * sent again delayed until then, so a slow provider never holds the batch, and with it every other
 * provider's calls. One second fits 10 calls at 10 calls/s, the default of all but SES and Resend. A
 * batch's adds to one list share a call (sync-batcher.ts), so a backlog of one batching provider is
 * held, not sent round again; calls that go one an address (SES, reactivations) past the tenth are
 * handed back with their turns.
 */
export const SYNC_MAX_HOLD_MS = 1_000;

/**
 * How far ahead the worker reserves a provider's rate slots for messages it hands back (each sent again
 * delayed until its slot, within SQS's 15-minute DelaySeconds). Past it the change waits in the outbox
 * for the sweeper (SyncProviderBacklogError). It bounds how long a new change, a reversal included,
 * waits behind a backlog at one provider's pace; five sweep intervals leave the sweeper time to refill it.
 */
export const SYNC_BOOKING_HORIZON_MS = 300_000;

/**
 * How many copies of the worker push at once on AWS: the sync queue's event source MaximumConcurrency
 * (lib/sync-definitions.ts SYNC_WORKER.maxConcurrency is this). Each copy has its own gates.
 */
export const SYNC_WORKER_MAX_CONCURRENCY = 2;

/**
 * Messages a second the workers can drain at most, the sweeper's ceiling (lease.ts DrainMeter): every
 * provider at its rate, on every copy. A backlog past SYNC_BOOKING_HORIZON_MS reaches the workers only
 * through the sweeper, so a ceiling of one copy's rates held a stack of two to half its pace.
 */
export function drainCeiling(
  limits: Readonly<Record<SyncProviderName, ProviderLimits>>,
  providers: readonly SyncProviderName[],
  copies: number,
): number {
  return providers.reduce((sum, p) => sum + limits[p].rate, 0) * copies || 1;
}

/** Retries span at least an hour before a change is dead-lettered (lower values are for tests). */
export const DEFAULT_RETRY_HORIZON_SECONDS = 3600;

/** What each number accepts (also docs/configuration.md's "Accepts" column, tools/env-table.ts). */
export const SYNC_RULES = {
  concurrency: { expected: 'a whole number of calls in flight from 1 to 64', min: 1, max: 64, integer: true },
  rate: { expected: 'calls per second, more than 0 and at most 1000', min: 0, exclusiveMin: true, max: 1000 },
  retryHorizonSeconds: { expected: 'a whole number of seconds from 1 to 86400', min: 1, max: 86_400, integer: true },
} as const;

export interface ProviderLimits {
  concurrency: number;
  /** Calls per second. */
  rate: number;
}

export interface SyncSettings {
  providers: SyncProviderName[];
  limits: Record<SyncProviderName, ProviderLimits>;
  retryHorizonMs: number;
}

/** Comma-separated names from SYNC_PROVIDERS; unset or blank → none (nothing is synced). Throws on an unknown or repeated name. */
export function parseSyncProviders(
  text: string | undefined,
  variable: string = SYNC_VARIABLES.providers,
): SyncProviderName[] {
  if (text === undefined || text.trim() === '') return [];
  const out: SyncProviderName[] = [];
  for (const raw of text.split(',')) {
    const name = raw.trim().toLowerCase();
    if (!(SYNC_PROVIDER_NAMES as readonly string[]).includes(name)) {
      throw new Error(`${variable}: "${raw.trim()}" is not one of ${SYNC_PROVIDER_NAMES.join(', ')}`);
    }
    if (out.includes(name as SyncProviderName)) throw new Error(`${variable} names ${name} twice`);
    out.push(name as SyncProviderName);
  }
  return out;
}

/**
 * `provider=value` pairs, comma-separated, one per provider (spaces around entries and names ignored;
 * unset or blank: none), as CDK context `syncRates` and `syncConcurrency` give them. The value is left
 * as text for the caller's number rule. Throws, naming `variable`, on an entry that is not
 * `provider=value`, a provider that is not one of SYNC_PROVIDER_NAMES (parseSyncProviders' words) or
 * one named twice (as TOPIC_ALIASES refuses a canonical name given twice).
 */
export function parseProviderValues(text: string | undefined, variable: string): ReadonlyMap<SyncProviderName, string> {
  const values = new Map<SyncProviderName, string>();
  if (text === undefined || text.trim() === '') return values;
  text.split(',').forEach((raw, index) => {
    const parts = raw.split('=');
    const [name, value] = parts.map((part) => part.trim());
    if (parts.length !== 2 || !name || !value) throw new Error(`${variable} entry ${index + 1} is not provider=value`);
    const [provider] = parseSyncProviders(name, variable);
    if (values.has(provider!)) throw new Error(`${variable} names ${provider} twice`);
    values.set(provider!, value);
  });
  return values;
}

/**
 * A rate or a concurrency given for a provider sync does not push to limits nothing: the operator meant
 * to hold a provider back, and nothing would. One rule for `npm start` (the variables:
 * unlistedLimitProblems) and `cdk synth` (context syncRates and syncConcurrency, lib/sync-limits.ts):
 * `name` must be a sync provider (parseSyncProviders' words) that `providers` lists. Throws naming `variable`.
 */
export function listedLimitProvider(
  name: string,
  providers: readonly SyncProviderName[],
  variable: string,
  listedBy: string,
): SyncProviderName {
  const [provider] = parseSyncProviders(name, variable);
  if (!providers.includes(provider!)) throw new Error(`${variable} names ${provider}, which ${listedBy} does not list`);
  return provider!;
}

/** SYNC_<NAME>_RATE and SYNC_<NAME>_CONCURRENCY, whatever the name: a limit variable, for a provider or not. */
const LIMIT_VARIABLE = /^SYNC_([A-Z0-9]+)_(?:RATE|CONCURRENCY)$/;

/**
 * A line per limit variable set (not blank) for a provider SYNC_PROVIDERS does not list, or for no sync
 * provider at all (`SYNC_SPARKPOST_RATE`). None when SYNC_PROVIDERS itself does not parse: its own line says why.
 */
export function unlistedLimitProblems(settings: Settings): string[] {
  let providers: SyncProviderName[];
  try {
    providers = parseSyncProviders(settings[SYNC_VARIABLES.providers]);
  } catch {
    return [];
  }
  const problems: string[] = [];
  for (const [variable, value] of Object.entries(settings)) {
    const name = LIMIT_VARIABLE.exec(variable)?.[1];
    if (name === undefined || value === undefined || value.trim() === '') continue;
    try {
      listedLimitProvider(name.toLowerCase(), providers, variable, SYNC_VARIABLES.providers);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}

export function syncSettings(settings: Settings): SyncSettings {
  const providers = parseSyncProviders(settings[SYNC_VARIABLES.providers]);
  const limits = {} as Record<SyncProviderName, ProviderLimits>;
  for (const provider of SYNC_PROVIDER_NAMES) {
    const defaults = SYNC_DEFAULT_LIMITS[provider];
    limits[provider] = {
      concurrency: numberFromSettings(settings, SYNC_VARIABLES.concurrency(provider), {
        default: defaults.concurrency,
        ...SYNC_RULES.concurrency,
      }),
      rate: numberFromSettings(settings, SYNC_VARIABLES.rate(provider), { default: defaults.rate, ...SYNC_RULES.rate }),
    };
  }
  const retryHorizonMs =
    1000 *
    numberFromSettings(settings, SYNC_VARIABLES.retryHorizonSeconds, {
      default: DEFAULT_RETRY_HORIZON_SECONDS,
      ...SYNC_RULES.retryHorizonSeconds,
    });
  return { providers, limits, retryHorizonMs };
}
