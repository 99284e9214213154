/**
 * What the `Ratchet` construct takes (every field optional, each with its default) and how it is checked.
 * A value that does not parse, or a combination that would lose events, throws with the setting's name
 * rather than deploying something nobody asked for. The messages are the ones CDK context has always
 * given (`context sesRouteRateLimit (99) is below the SNS pace ...`): `readConfig` (lib/config.ts) only
 * maps context to these props, and the construct checks them, so both paths fail the same way.
 */

import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { INBOX_TTL_CONTEXT } from '../../lambdas/core/inbox-ttl.js';
import { topicAliases, topicLabels } from '../context-topics.js';
import {
  boolean,
  ContextError,
  email,
  type Getter,
  isUnset,
  list,
  oneOf,
  positiveInteger,
  positiveNumber,
} from '../context-values.js';
import { API, CONCURRENCY, DEFAULT_INBOX_TTL_DAYS, DEFAULT_RESOURCE_PREFIX, FUNCTION_URL } from '../definitions.js';
import type { SyncProps } from '../sync-config.js';
import type { ProviderRoute } from './provider-secrets.js';

/** `api-gateway`: HTTP API with per-route throttles. `function-url`: a Lambda Function URL, cheaper. */
export const FRONT_DOOR_KINDS = ['api-gateway', 'function-url'] as const;
export type FrontDoorKind = (typeof FRONT_DOOR_KINDS)[number];
/** How SES events reach the edge code: `sqs`, a queue the topic feeds; `https`, an SNS HTTPS subscription. */
export const SES_FEED_KINDS = ['sqs', 'https'] as const;
export type SesFeedKind = (typeof SES_FEED_KINDS)[number];
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_LOG_RETENTION_DAYS = RetentionDays.ONE_MONTH;
/** Rejections (401/403/...) per provider per 5 minutes: a misconfigured sender or someone probing. */
export const DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD = 25;
/** The defaults that are not sizes (those live in definitions.ts), for the construct and the context table. */
export const PROP_DEFAULTS = {
  front: 'api-gateway',
  sesFeed: 'sqs',
  reuseRetained: false,
  inboxPointInTimeRecovery: false,
  createConfigurationSet: true,
  logRetentionDays: DEFAULT_LOG_RETENTION_DAYS,
  logLevel: 'INFO',
} as const satisfies {
  front: FrontDoorKind;
  sesFeed: SesFeedKind;
  logLevel: LogLevel;
  [key: string]: unknown;
};
/** The context key (and prop) for SNS_MAX_AGE_SECONDS. */
export const SNS_MAX_AGE_CONTEXT = 'snsMaxAgeSeconds';

export interface RatchetProps extends SyncProps {
  /**
   * Start of every physical name (tables, queues, secrets): one per stack in an account and region.
   * 2-40 lower-case letters, digits and dashes, starting with a letter.
   * @default 'ratchet'
   */
  readonly resourcePrefix?: string;
  /**
   * SNS topics besides the stack's own whose messages the edge accepts (and may confirm), such as
   * another account's SES topic subscribed to the feed queue.
   * @default - none
   */
  readonly extraTopicArns?: readonly string[];
  /**
   * Days an inbox row (the dedup record) lives; must outlive every provider's signature window.
   * @default 30
   */
  readonly inboxTtlDays?: number;
  /** @default false (the rows expire anyway; the suppression table always has PITR) */
  readonly inboxPointInTimeRecovery?: boolean;
  /**
   * Provider settings for the edge, by variable (`POSTMARK_ALLOWED_IPS`: `'3.134.147.250,...'`). One left
   * out keeps the provider module's own default.
   * @default - none
   */
  readonly providerSettings?: Readonly<Record<string, string>>;
  /** @default 'api-gateway' */
  readonly front?: FrontDoorKind;
  /** @default 'sqs' */
  readonly sesFeed?: SesFeedKind;
  /**
   * Use the suppression table and the secrets a destroyed stack retained, by name, instead of creating
   * them (docs/deploy-lifecycle.md).
   * @default false
   */
  readonly reuseRetained?: boolean;
  /** API Gateway stage default (every route without its own limit), requests per second. @default 100 */
  readonly throttleRateLimit?: number;
  /** @default 200 */
  readonly throttleBurstLimit?: number;
  /** Pace of the SES topic's HTTPS subscription (`sesFeed=https`), messages per second. @default 50 */
  readonly snsMaxReceivesPerSecond?: number;
  /**
   * SNS_MAX_AGE_SECONDS: how old a signed SNS message may be. Must be below the inbox TTL.
   * @default - the runtime's default (the inbox TTL less a day)
   */
  readonly snsMaxAgeSeconds?: number;
  /** `POST /webhooks/ses` only; at least twice `snsMaxReceivesPerSecond`. @default 2 x snsMaxReceivesPerSecond */
  readonly sesRouteRateLimit?: number;
  /** @default 2 x sesRouteRateLimit */
  readonly sesRouteBurstLimit?: number;
  /**
   * The edge's reserved concurrency, on either front door: its share of `concurrencyBudget`, and the
   * Function URL's only throttle (API Gateway answers a throttled invocation with a 500, retried).
   * @default - Function URL: what the SNS pace needs, twice, plus room for throttleRateLimit;
   *   API Gateway: what the route rate limits together can keep busy
   */
  readonly edgeReservedConcurrency?: number;
  /**
   * The most copies of all the stack's functions together (the edge's reserved concurrency, every SQS
   * event source's MaximumConcurrency, a scheduled function's reserved concurrency): synth refuses more.
   * @default 200 (of the account's default quota of 1,000)
   */
  readonly concurrencyBudget?: number;
  /** Create the SES configuration set that feeds the topic (false: wire SES yourself). @default true */
  readonly createConfigurationSet?: boolean;
  /** @default - the runtime's soft-bounce policy */
  readonly softBounceLimit?: number;
  /** @default - the runtime's soft-bounce policy */
  readonly softBounceWindowDays?: number;
  /** Retention of every log group, in days (a CloudWatch Logs retention period). @default 30 */
  readonly logRetentionDays?: number;
  /** @default 'INFO' */
  readonly logLevel?: LogLevel;
  /** Subscribed to the alarm topic (AWS sends a confirmation mail first). @default - none */
  readonly alarmEmail?: string;
  /** RequestsRejected per provider in 5 minutes at or above which the alarm fires. @default 25 */
  readonly rejectedRequestsAlarmThreshold?: number;
  /** `canonical=alias` pairs (env TOPIC_ALIASES), a comma list or an array. @default - none */
  readonly topicAliases?: string | readonly string[];
  /** `topic=label` pairs (env TOPIC_LABELS), a comma list or an array. @default - none */
  readonly topicLabels?: string | readonly string[];
  /** The providers with a route and a secret. @default - the registry (lambdas/core/providers) */
  readonly providers?: readonly ProviderRoute[];
  /** Holds package-lock.json and lambdas/, for bundling. @default - this package's root */
  readonly projectRoot?: string;
}

/** The props with every default applied and every rule checked: what the construct builds from. */
export interface RatchetConfig {
  readonly resourcePrefix: string;
  readonly extraTopicArns: readonly string[];
  readonly inboxTtlDays: number;
  readonly inboxPointInTimeRecovery: boolean;
  readonly providerSettings: Readonly<Record<string, string>>;
  readonly front: FrontDoorKind;
  readonly sesFeed: SesFeedKind;
  readonly reuseRetained: boolean;
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly snsMaxReceivesPerSecond: number;
  readonly snsMaxAgeSeconds: number | undefined;
  readonly sesRouteRateLimit: number;
  readonly sesRouteBurstLimit: number;
  readonly edgeReservedConcurrency: number;
  readonly concurrencyBudget: number;
  readonly createConfigurationSet: boolean;
  readonly softBounceLimit: number | undefined;
  readonly softBounceWindowDays: number | undefined;
  readonly logRetention: RetentionDays;
  readonly logLevel: LogLevel;
  readonly alarmEmail: string | undefined;
  readonly rejectedRequestsAlarmThreshold: number;
  /** Env TOPIC_ALIASES (edge and consumer) and TOPIC_LABELS (edge), normalized. */
  readonly topicAliases: string | undefined;
  readonly topicLabels: string | undefined;
}

/** Defaults and checks; the same readers as CDK context, so a prop fails exactly as its context key does. */
export function resolveRatchetProps(props: RatchetProps = {}): RatchetConfig {
  const get: Getter = (key) => (props as Record<string, unknown>)[key];

  const throttleRateLimit = positiveNumber(get, 'throttleRateLimit') ?? API.throttleRateLimit;
  const throttleBurstLimit = positiveInteger(get, 'throttleBurstLimit') ?? API.throttleBurstLimit;
  const snsMaxReceivesPerSecond = positiveInteger(get, 'snsMaxReceivesPerSecond') ?? API.snsMaxReceivesPerSecond;
  const minimumSesRate = snsMaxReceivesPerSecond * API.sesRouteMargin;
  const sesRouteRateLimit = positiveNumber(get, 'sesRouteRateLimit') ?? minimumSesRate;
  if (sesRouteRateLimit < minimumSesRate) {
    // SNS treats the route's 429 as delivered: a limit at or near its pace would drop SES events silently.
    throw new ContextError(
      `context sesRouteRateLimit (${sesRouteRateLimit}) is below the SNS pace: it must be at least ${API.sesRouteMargin} x snsMaxReceivesPerSecond (${snsMaxReceivesPerSecond}) = ${minimumSesRate}`,
    );
  }
  const sesRouteBurstLimit = positiveInteger(get, 'sesRouteBurstLimit') ?? Math.ceil(2 * sesRouteRateLimit);
  if (sesRouteBurstLimit < snsMaxReceivesPerSecond) {
    throw new ContextError(
      `context sesRouteBurstLimit (${sesRouteBurstLimit}) is below snsMaxReceivesPerSecond (${snsMaxReceivesPerSecond})`,
    );
  }

  const routeRates = throttleRateLimit + sesRouteRateLimit + 2 * API.unsubscribeRateLimit;
  if (routeRates > API.accountRateLimit) {
    // Above the account quota the route buckets stop being separate: the account limit answers 429 first.
    throw new ContextError(
      `context: the route rate limits add up to ${routeRates}/s, above API Gateway's account quota of ${API.accountRateLimit}/s`,
    );
  }

  const front = oneOf(get, 'front', FRONT_DOOR_KINDS) ?? PROP_DEFAULTS.front;
  const sesConcurrency = Math.ceil(snsMaxReceivesPerSecond * FUNCTION_URL.secondsPerRequest * FUNCTION_URL.sesMargin);
  // Behind API Gateway the route limits are the throttle: reserve what they can keep busy, so Lambda
  // does not throttle first. Behind a Function URL the reservation is the throttle.
  const edgeReservedConcurrency =
    positiveInteger(get, 'edgeReservedConcurrency') ??
    (front === 'api-gateway'
      ? Math.ceil(routeRates * FUNCTION_URL.secondsPerRequest)
      : sesConcurrency + Math.ceil(throttleRateLimit * FUNCTION_URL.secondsPerRequest));
  if (edgeReservedConcurrency < sesConcurrency) {
    throw new ContextError(
      `context edgeReservedConcurrency (${edgeReservedConcurrency}) is below what the SNS pace needs (${sesConcurrency}): a throttled SES delivery answers 429, which SNS drops`,
    );
  }

  const retentionDays = positiveInteger(get, 'logRetentionDays');
  if (retentionDays !== undefined && !Object.values(RetentionDays).includes(retentionDays)) {
    throw new ContextError(`context logRetentionDays (${retentionDays}) is not a CloudWatch Logs retention period`);
  }

  const inboxTtlDays = positiveInteger(get, INBOX_TTL_CONTEXT) ?? DEFAULT_INBOX_TTL_DAYS;
  // Whether it outlives every signature window is checked where the windows are known: the edge's
  // environment (constructs/environments.ts), with the same function `npm start` uses.
  const snsMaxAgeSeconds = positiveInteger(get, SNS_MAX_AGE_CONTEXT);
  if (snsMaxAgeSeconds !== undefined) assertSnsMaxAgeBelowInboxTtl(snsMaxAgeSeconds, inboxTtlDays);

  return {
    resourcePrefix: resourcePrefix(get),
    extraTopicArns: list(get, 'extraTopicArns') ?? [],
    inboxTtlDays,
    inboxPointInTimeRecovery: boolean(get, 'inboxPointInTimeRecovery') ?? PROP_DEFAULTS.inboxPointInTimeRecovery,
    providerSettings: { ...(props.providerSettings ?? {}) },
    front,
    sesFeed: oneOf(get, 'sesFeed', SES_FEED_KINDS) ?? PROP_DEFAULTS.sesFeed,
    reuseRetained: boolean(get, 'reuseRetained') ?? PROP_DEFAULTS.reuseRetained,
    throttleRateLimit,
    throttleBurstLimit,
    snsMaxReceivesPerSecond,
    snsMaxAgeSeconds,
    sesRouteRateLimit,
    sesRouteBurstLimit,
    edgeReservedConcurrency,
    concurrencyBudget: positiveInteger(get, 'concurrencyBudget') ?? CONCURRENCY.defaultBudget,
    createConfigurationSet: boolean(get, 'createConfigurationSet') ?? PROP_DEFAULTS.createConfigurationSet,
    softBounceLimit: positiveInteger(get, 'softBounceLimit'),
    softBounceWindowDays: positiveInteger(get, 'softBounceWindowDays'),
    logRetention: (retentionDays as RetentionDays | undefined) ?? DEFAULT_LOG_RETENTION_DAYS,
    logLevel: oneOf(get, 'logLevel', LOG_LEVELS) ?? PROP_DEFAULTS.logLevel,
    alarmEmail: email(get, 'alarmEmail'),
    rejectedRequestsAlarmThreshold:
      positiveInteger(get, 'rejectedRequestsAlarmThreshold') ?? DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD,
    topicAliases: topicAliases(get),
    topicLabels: topicLabels(get),
  };
}

/**
 * An authentic SNS message is admitted while it is younger than the maximum age, so its inbox row must
 * still exist for as long: a maximum age at or above the inbox TTL would let a replay of an expired row
 * be applied twice. Pure; the construct calls it (the edge's own check, assertInboxOutlivesWindows, adds
 * the clock-skew allowance and a margin on top).
 */
export function assertSnsMaxAgeBelowInboxTtl(maxAgeSeconds: number, inboxTtlDays: number): void {
  const ttlSeconds = inboxTtlDays * 86_400;
  if (maxAgeSeconds >= ttlSeconds) {
    throw new ContextError(
      `context ${SNS_MAX_AGE_CONTEXT} (SNS_MAX_AGE_SECONDS, ${maxAgeSeconds}) must be below the inbox TTL (context ${INBOX_TTL_CONTEXT}: ${inboxTtlDays} days = ${ttlSeconds} s): an SNS message replayed after its inbox row expired would be admitted twice`,
    );
  }
}

/** Lower-case letters, digits and dashes: valid in every name it starts (DynamoDB, SQS, Secrets Manager). */
const RESOURCE_PREFIX = /^[a-z][a-z0-9-]{0,38}[a-z0-9]$/;

function resourcePrefix(get: Getter): string {
  const value = get('resourcePrefix');
  if (isUnset(value)) return DEFAULT_RESOURCE_PREFIX;
  if (typeof value !== 'string' || !RESOURCE_PREFIX.test(value.trim())) {
    throw new ContextError(
      `context resourcePrefix must be 2-40 lower-case letters, digits and dashes, starting with a letter, got ${JSON.stringify(value)}`,
    );
  }
  return value.trim();
}
