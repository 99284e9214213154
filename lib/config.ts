/**
 * Deployment settings, read from CDK context (`cdk.json`, or `cdk deploy -c key=value`). A value that
 * does not parse, or a combination that would lose events, fails the synth with the key's name rather
 * than deploying something the operator did not ask for.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { INBOX_TTL_CONTEXT } from '../lambdas/core/inbox-ttl.js';
import type { ProviderDefinition } from '../lambdas/core/provider.js';
import { PROVIDERS } from '../lambdas/core/providers/index.js';
import { topicAliases, topicLabels } from './context-topics.js';
import { boolean, email, isUnset, list, oneOf, positiveInteger, positiveNumber, type Getter } from './context-values.js';
import { API, DEFAULT_INBOX_TTL_DAYS, DEFAULT_RESOURCE_PREFIX, FUNCTION_URL } from './definitions.js';

/** `api-gateway` (default): HTTP API with per-route throttles. `function-url`: a Lambda Function URL, cheaper. */
export type FrontDoorKind = 'api-gateway' | 'function-url';
/** How SES events reach the edge code: `sqs` (default), a queue the topic feeds; `https`, an SNS HTTPS subscription. */
export const SES_FEED_KINDS = ['sqs', 'https'] as const;
export type SesFeedKind = (typeof SES_FEED_KINDS)[number];
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface RatchetConfig {
  /** Start of every physical name (tables, queues, secrets): one per stack in an account and region. */
  readonly resourcePrefix: string;
  /** SNS topics besides the stack's own whose messages the edge accepts (and may confirm). */
  readonly extraTopicArns: readonly string[];
  readonly inboxTtlDays: number;
  readonly inboxPointInTimeRecovery: boolean;
  /**
   * The provider settings given in context (declared with a `contextKey` on their ProviderDefinition,
   * such as `postmarkAllowedIps` for POSTMARK_ALLOWED_IPS), by variable: the edge gets them as they are.
   * One left out of context stays unset, so the provider module's own default applies.
   */
  readonly providerSettings: Readonly<Record<string, string>>;
  readonly front: FrontDoorKind;
  readonly sesFeed: SesFeedKind;
  /**
   * Use the suppression table and the secrets a destroyed stack left behind (they are retained, with
   * fixed names) instead of creating them, so the next deploy does not fail on names that exist.
   */
  readonly reuseRetained: boolean;
  /** SNS_MAX_AGE_SECONDS for the edge; unset leaves the runtime's default (the inbox TTL less a day). */
  readonly snsMaxAgeSeconds: number | undefined;
  /** Stage default: every route without its own limit. */
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly snsMaxReceivesPerSecond: number;
  /** `POST /webhooks/ses` only. */
  readonly sesRouteRateLimit: number;
  readonly sesRouteBurstLimit: number;
  /** Function URL front door only: the edge's reserved concurrency, its throttle. */
  readonly edgeReservedConcurrency: number;
  readonly createConfigurationSet: boolean;
  readonly softBounceLimit: number | undefined;
  readonly softBounceWindowDays: number | undefined;
  readonly logRetention: RetentionDays;
  readonly logLevel: LogLevel;
  /** Subscribed to the alarm topic (AWS sends a confirmation mail first). */
  readonly alarmEmail: string | undefined;
  /** RequestsRejected per provider in 5 minutes at or above which the alarm fires. */
  readonly rejectedRequestsAlarmThreshold: number;
  /** Env TOPIC_ALIASES (edge and consumer) and TOPIC_LABELS (edge), normalized. */
  readonly topicAliases: string | undefined;
  readonly topicLabels: string | undefined;
}

export const DEFAULT_LOG_RETENTION_DAYS = RetentionDays.ONE_MONTH;
/** Rejections (401/403/...) per provider per 5 minutes: a misconfigured sender or someone probing. */
export const DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD = 25;

export function readConfig(node: Node): RatchetConfig {
  const get = (key: string): unknown => node.tryGetContext(key);

  const throttleRateLimit = positiveNumber(get, 'throttleRateLimit') ?? API.throttleRateLimit;
  const throttleBurstLimit = positiveInteger(get, 'throttleBurstLimit') ?? API.throttleBurstLimit;
  const snsMaxReceivesPerSecond = positiveInteger(get, 'snsMaxReceivesPerSecond') ?? API.snsMaxReceivesPerSecond;
  const minimumSesRate = snsMaxReceivesPerSecond * API.sesRouteMargin;
  const sesRouteRateLimit = positiveNumber(get, 'sesRouteRateLimit') ?? minimumSesRate;
  if (sesRouteRateLimit < minimumSesRate) {
    // SNS treats the route's 429 as delivered: a limit at or near its pace would drop SES events silently.
    throw new Error(
      `context sesRouteRateLimit (${sesRouteRateLimit}) is below the SNS pace: it must be at least ${API.sesRouteMargin} x snsMaxReceivesPerSecond (${snsMaxReceivesPerSecond}) = ${minimumSesRate}`,
    );
  }
  const sesRouteBurstLimit = positiveInteger(get, 'sesRouteBurstLimit') ?? Math.ceil(2 * sesRouteRateLimit);
  if (sesRouteBurstLimit < snsMaxReceivesPerSecond) {
    throw new Error(`context sesRouteBurstLimit (${sesRouteBurstLimit}) is below snsMaxReceivesPerSecond (${snsMaxReceivesPerSecond})`);
  }

  const routeRates = throttleRateLimit + sesRouteRateLimit + 2 * API.unsubscribeRateLimit;
  if (routeRates > API.accountRateLimit) {
    // Above the account quota the route buckets stop being separate: the account limit answers 429 first.
    throw new Error(`context: the route rate limits add up to ${routeRates}/s, above API Gateway's account quota of ${API.accountRateLimit}/s`);
  }

  const sesConcurrency = Math.ceil(snsMaxReceivesPerSecond * FUNCTION_URL.secondsPerRequest * FUNCTION_URL.sesMargin);
  const edgeReservedConcurrency =
    positiveInteger(get, 'edgeReservedConcurrency') ??
    sesConcurrency + Math.ceil(throttleRateLimit * FUNCTION_URL.secondsPerRequest);
  if (edgeReservedConcurrency < sesConcurrency) {
    throw new Error(
      `context edgeReservedConcurrency (${edgeReservedConcurrency}) is below what the SNS pace needs (${sesConcurrency}): a throttled SES delivery answers 429, which SNS drops`,
    );
  }

  const retentionDays = positiveInteger(get, 'logRetentionDays');
  if (retentionDays !== undefined && !Object.values(RetentionDays).includes(retentionDays)) {
    throw new Error(`context logRetentionDays (${retentionDays}) is not a CloudWatch Logs retention period`);
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
    inboxPointInTimeRecovery: boolean(get, 'inboxPointInTimeRecovery') ?? false,
    providerSettings: providerSettingsFromContext(get),
    front: oneOf(get, 'front', ['api-gateway', 'function-url'] as const) ?? 'api-gateway',
    sesFeed: oneOf(get, 'sesFeed', SES_FEED_KINDS) ?? 'sqs',
    reuseRetained: boolean(get, 'reuseRetained') ?? false,
    snsMaxAgeSeconds,
    throttleRateLimit,
    throttleBurstLimit,
    snsMaxReceivesPerSecond,
    sesRouteRateLimit,
    sesRouteBurstLimit,
    edgeReservedConcurrency,
    createConfigurationSet: boolean(get, 'createConfigurationSet') ?? true,
    softBounceLimit: positiveInteger(get, 'softBounceLimit'),
    softBounceWindowDays: positiveInteger(get, 'softBounceWindowDays'),
    logRetention: (retentionDays as RetentionDays | undefined) ?? DEFAULT_LOG_RETENTION_DAYS,
    logLevel: oneOf(get, 'logLevel', LOG_LEVELS) ?? 'INFO',
    alarmEmail: email(get, 'alarmEmail'),
    rejectedRequestsAlarmThreshold:
      positiveInteger(get, 'rejectedRequestsAlarmThreshold') ?? DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD,
    topicAliases: topicAliases(get),
    topicLabels: topicLabels(get),
  };
}

/**
 * Every provider setting declared with a context key, read as a comma-separated string or a list of
 * strings (blanks dropped) and joined with commas; an empty one is left out. No provider is named here.
 */
export function providerSettingsFromContext(get: Getter, providers: readonly ProviderDefinition[] = PROVIDERS): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const { contextKey, variable } of providers.flatMap((provider) => provider.settings)) {
    const items = contextKey === undefined ? undefined : list(get, contextKey);
    if (items !== undefined && items.length > 0) settings[variable] = items.join(',');
  }
  return settings;
}

/** The context key for SNS_MAX_AGE_SECONDS. */
export const SNS_MAX_AGE_CONTEXT = 'snsMaxAgeSeconds';

/**
 * An authentic SNS message is admitted while it is younger than the maximum age, so its inbox row must
 * still exist for as long: a maximum age at or above the inbox TTL would let a replay of an expired row
 * be applied twice. Pure; `cdk synth` calls it (the edge's own check, assertInboxOutlivesWindows, adds
 * the clock-skew allowance and a margin on top).
 */
export function assertSnsMaxAgeBelowInboxTtl(maxAgeSeconds: number, inboxTtlDays: number): void {
  const ttlSeconds = inboxTtlDays * 86_400;
  if (maxAgeSeconds >= ttlSeconds) {
    throw new Error(
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
    throw new Error(
      `context resourcePrefix must be 2-40 lower-case letters, digits and dashes, starting with a letter, got ${JSON.stringify(value)}`,
    );
  }
  return value.trim();
}
