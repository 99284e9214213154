/**
 * Every CDK context key the shipped stack reads, declared once: how it parses, what it means and its
 * default. `readConfig` (lib/config.ts) reads context through these declarations only, the context
 * table of docs/deploy.md is rendered from them (tools/context-table.ts), and a key that is not
 * declared here is refused by name (`unknownContextKeys`), so a misspelling never deploys a default.
 *
 * One declaration per prop of the construct that context may set (the types make a new prop without a
 * key a compile error), plus `stackName` (read by bin/app.ts) and the provider settings that declare a
 * `contextKey` (lambdas/core/providers).
 */
import { minimumInboxTtlDays } from '../lambdas/core/inbox-retention.js';
import { INBOX_TTL_CONTEXT } from '../lambdas/core/inbox-ttl.js';
import type { ProviderDefinition } from '../lambdas/core/provider.js';
import { PROVIDERS } from '../lambdas/core/providers/index.js';
import { REPUTATION_SETTINGS } from '../lambdas/core/reputation/settings.js';
import type { SettingDeclaration } from '../lambdas/core/settings.js';
import { POLICY_SETTINGS, SOFT_BOUNCE_VARIABLES } from '../lambdas/core/suppression/policy.js';
import { DEFAULT_RETRY_HORIZON_SECONDS, SYNC_RULES } from '../lambdas/core/sync/settings.js';
import { SYNC_PROVIDER_NAMES } from '../lambdas/core/sync/target.js';
import { TOPIC_ALIASES_SETTING } from '../lambdas/core/topics.js';
import { PAGE_SETTINGS, TOPIC_LABELS_VARIABLE } from '../lambdas/core/unsubscribe/settings.js';
import {
  DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD,
  FRONT_DOOR_KINDS,
  LOG_LEVELS,
  PROP_DEFAULTS,
  type RatchetProps,
  SES_FEED_KINDS,
  SNS_MAX_AGE_CONTEXT,
} from './constructs/ratchet-props.js';
import { boolean, type Getter, isUnset, list, oneOf, positiveInteger, positiveNumber } from './context-values.js';
import { API, CONCURRENCY, DEFAULT_INBOX_TTL_DAYS, DEFAULT_RESOURCE_PREFIX } from './definitions.js';
import { readRetrySeconds } from './sync-config.js';
import { RATE_STEP, SYNC_WORKER_COPIES, stackDefault } from './sync-limits.js';

/** The props context may set: all but the ones only code can pass (the registry, the bundling root). */
export type ContextProps = Omit<RatchetProps, 'providers' | 'projectRoot' | 'providerSettings'>;

export interface ContextKeyDeclaration<T> {
  /** Parses the value context holds (a string from `-c`, anything JSON from cdk.json); throws naming the key. */
  readonly read: (get: Getter, key: string) => T | undefined;
  /** What it changes, in one line (the table's Meaning column). */
  readonly describe: string;
  /** The default as the table shows it; empty when unset means "none". */
  readonly default: string;
}

type Declarations = { readonly [K in keyof ContextProps]-?: ContextKeyDeclaration<ContextProps[K]> };

const text = (get: Getter, key: string): string | undefined => {
  const value = get(key);
  return isUnset(value) ? undefined : typeof value === 'string' ? value.trim() : (value as string);
};

/** A setting declared in the core (its `(default …)` split off), read as a list. */
function fromSetting(setting: SettingDeclaration): ContextKeyDeclaration<readonly string[]> {
  const match = /\s*\(default:?\s+(.+)\)$/.exec(setting.describe);
  return {
    read: list,
    describe: `${match ? setting.describe.slice(0, match.index) : setting.describe} (\`${setting.variable}\`)`,
    default: match?.[1] ?? '',
  };
}

/** A whole-number setting declared in the core, described by its own declaration. */
function numberSetting(variable: string): ContextKeyDeclaration<number> {
  const setting = POLICY_SETTINGS.find((s) => s.variable === variable);
  if (!setting) throw new Error(`no setting declares ${variable}`);
  const { describe, default: fallback } = fromSetting(setting);
  return { read: positiveInteger, describe, default: fallback };
}

const code = (value: string | number) => `\`${value}\``;

/** The per-copy defaults times the copies, in the form the key takes. */
const stackDefaults = (limit: 'rate' | 'concurrency') =>
  code(SYNC_PROVIDER_NAMES.map((p) => `${p}=${stackDefault(p)[limit]}`).join(','));

export const CONTEXT_KEYS: Declarations = {
  resourcePrefix: {
    read: text,
    describe:
      'Start of every physical name (tables, queues, secrets), one per stack in an account and region ([second stack](#names-secrets-and-a-second-stack))',
    default: code(DEFAULT_RESOURCE_PREFIX),
  },
  front: {
    read: (get, key) => oneOf(get, key, FRONT_DOOR_KINDS),
    describe: `${FRONT_DOOR_KINDS.map(code).join(' or ')} ([front doors](#front-doors))`,
    default: code(PROP_DEFAULTS.front),
  },
  sesFeed: {
    read: (get, key) => oneOf(get, key, SES_FEED_KINDS),
    describe:
      'How SES events arrive: `sqs`, the SES topic feeds a queue drained by the feed Lambda ([ses-feed.md](ses-feed.md)); `https`, an HTTPS subscription to `/webhooks/ses`',
    default: code(PROP_DEFAULTS.sesFeed),
  },
  reuseRetained: {
    read: boolean,
    describe:
      'Use the suppression table and secrets a destroyed stack retained, by name ([deploy-lifecycle.md](deploy-lifecycle.md))',
    default: code(String(PROP_DEFAULTS.reuseRetained)),
  },
  throttleRateLimit: {
    read: positiveNumber,
    describe: 'Stage default (`POST /webhooks/{provider}`), requests per second',
    default: code(API.throttleRateLimit),
  },
  throttleBurstLimit: { read: positiveInteger, describe: 'Its burst', default: code(API.throttleBurstLimit) },
  snsMaxReceivesPerSecond: {
    read: positiveInteger,
    describe: "The pace of the SES topic's HTTPS deliveries (`sesFeed=https`)",
    default: code(API.snsMaxReceivesPerSecond),
  },
  [SNS_MAX_AGE_CONTEXT]: {
    read: positiveInteger,
    describe: 'How old a signed SNS message may be, in seconds (`SNS_MAX_AGE_SECONDS`); below the inbox TTL',
    default: 'the inbox TTL less a day',
  },
  sesRouteRateLimit: {
    read: positiveNumber,
    describe: `\`POST /webhooks/ses\` only; the synth fails below ${API.sesRouteMargin} × the SNS pace`,
    default: `${API.sesRouteMargin} × pace`,
  },
  sesRouteBurstLimit: { read: positiveInteger, describe: 'Its burst', default: '2 × its rate' },
  edgeReservedConcurrency: {
    read: positiveInteger,
    describe:
      "The edge's reserved concurrency on either front door (the Function URL's throttle); the synth fails below what the SNS pace needs",
    default: 'sized from the route limits (API Gateway) or the SNS pace and `throttleRateLimit` (Function URL)',
  },
  concurrencyBudget: {
    read: positiveInteger,
    describe:
      "What every function's possible concurrency may add up to (reservations and SQS `MaximumConcurrency`); the synth fails over it, naming the parts",
    default: code(CONCURRENCY.defaultBudget),
  },
  [INBOX_TTL_CONTEXT]: {
    read: positiveInteger,
    describe: `Inbox row lifetime in days (at least ${minimumInboxTtlDays()} with the default signature windows: longer than every one of them)`,
    default: code(DEFAULT_INBOX_TTL_DAYS),
  },
  inboxPointInTimeRecovery: {
    read: boolean,
    describe: 'PITR on the inbox (the suppression table always has it)',
    default: code(String(PROP_DEFAULTS.inboxPointInTimeRecovery)),
  },
  createConfigurationSet: {
    read: boolean,
    describe: 'Create the SES configuration set that publishes to the topic',
    default: code(String(PROP_DEFAULTS.createConfigurationSet)),
  },
  extraTopicArns: {
    read: list,
    describe: 'More SNS topics whose messages the edge accepts (`SNS_TOPIC_ARNS`)',
    default: '',
  },
  softBounceLimit: numberSetting(SOFT_BOUNCE_VARIABLES.limit),
  softBounceWindowDays: numberSetting(SOFT_BOUNCE_VARIABLES.windowDays),
  topicAliases: fromSetting(TOPIC_ALIASES_SETTING),
  topicLabels: fromSetting(PAGE_SETTINGS.find((s) => s.variable === TOPIC_LABELS_VARIABLE)!),
  logRetentionDays: {
    read: positiveInteger,
    describe: 'Retention of the log groups, a CloudWatch Logs retention period in days',
    default: code(PROP_DEFAULTS.logRetentionDays),
  },
  logLevel: {
    read: (get, key) => oneOf(get, key, LOG_LEVELS),
    describe: `\`LOG_LEVEL\` of every Lambda: ${LOG_LEVELS.map(code).join(', ')}`,
    default: code(PROP_DEFAULTS.logLevel),
  },
  alarmEmail: { read: text, describe: 'An address subscribed to the alarm topic', default: '' },
  rejectedRequestsAlarmThreshold: {
    read: positiveInteger,
    describe: 'Rejected (4xx) requests per provider per 5 minutes that alarm',
    default: code(DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD),
  },
  syncProviders: {
    read: list,
    describe: `Providers to push suppressions to (${SYNC_PROVIDER_NAMES.join(', ')}); unset, no sync resources exist ([sync.md](sync.md))`,
    default: '',
  },
  postmarkStreams: {
    read: list,
    describe: 'Postmark message streams a global suppression goes to (`POSTMARK_STREAMS`)',
    default: '`outbound`',
  },
  mailgunDomains: {
    read: list,
    describe: 'Mailgun sending domains (`MAILGUN_DOMAINS`); required with `mailgun` in `syncProviders`',
    default: '',
  },
  syncRates: {
    read: list,
    describe: `Calls a second to each provider for the whole stack, as its account allows: \`sendgrid=50,ses=14\`; each of the ${SYNC_WORKER_COPIES} worker copies gets an equal share, rounded down to ${RATE_STEP} (\`SYNC_<PROVIDER>_RATE\`; [sync.md](sync.md#on-aws-syncrates-and-syncconcurrency))`,
    default: stackDefaults('rate'),
  },
  syncConcurrency: {
    read: list,
    describe: `Calls in flight to each provider for the whole stack: \`sendgrid=16\`; shared between the worker copies, rounded down, at least one each (\`SYNC_<PROVIDER>_CONCURRENCY\`)`,
    default: stackDefaults('concurrency'),
  },
  syncRetrySeconds: {
    read: (get, key) => readRetrySeconds(get(key)),
    describe: `How long the sync worker retries a change after its first counted failure (a 5xx, a timeout) before the dead letters, ${SYNC_RULES.retryHorizonSeconds.expected}; waiting on a 429 never counts (\`SYNC_RETRY_SECONDS\`; [sync.md](sync.md#the-retry-horizon-syncretryseconds))`,
    default: code(DEFAULT_RETRY_HORIZON_SECONDS),
  },
};

/** Read by bin/app.ts, not the construct. */
export const STACK_NAME_KEY = 'stackName';
export const DEFAULT_STACK_NAME = 'Ratchet';

export function readStackName(get: Getter): string {
  return text(get, STACK_NAME_KEY) || DEFAULT_STACK_NAME;
}

/** The provider settings with a context key (`postmarkAllowedIps`): into `providerSettings`, by variable. */
export const providerContextSettings = (providers: readonly ProviderDefinition[] = PROVIDERS): SettingDeclaration[] =>
  providers.flatMap((p) => p.settings).filter((s) => s.contextKey !== undefined);

export interface ContextKeyRow {
  key: string;
  describe: string;
  default: string;
}

/** Every key the shipped app reads, in declaration order: the construct's, the providers', reputation's, the stack name. */
export function contextKeyRows(providers: readonly ProviderDefinition[] = PROVIDERS): ContextKeyRow[] {
  return [
    ...Object.entries(CONTEXT_KEYS).map(([key, d]) => ({ key, describe: d.describe, default: d.default })),
    ...providerContextSettings(providers).map((s) => ({ key: s.contextKey!, ...fromSetting(s) })),
    // Read by the reputation construct itself (lib/constructs/reputation.ts), checked at synth.
    ...REPUTATION_SETTINGS.filter((s) => s.contextKey !== undefined).map((s) => ({
      key: s.contextKey!,
      ...fromSetting(s),
    })),
    {
      key: STACK_NAME_KEY,
      describe: "The stack's name ([second stack](#names-secrets-and-a-second-stack))",
      default: code(DEFAULT_STACK_NAME),
    },
  ];
}

/**
 * Context keys that look like Ratchet's (a plain camelCase word: CDK's own carry `:`, `@` or `-`) but
 * that no declaration reads. Each is one line naming it, with the closest declared key when one is near.
 */
export function unknownContextKeys(given: readonly string[], known: readonly string[]): string[] {
  return given
    .filter((key) => /^[a-z][A-Za-z0-9]*$/.test(key) && !known.includes(key))
    .map((key) => {
      const near = known.find((k) => k.toLowerCase() === key.toLowerCase() || distance(k, key) <= 2);
      return `context ${key} is not a Ratchet setting${near ? ` (did you mean ${near}?)` : ''}: the keys are in docs/deploy.md#context-options`;
    });
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
