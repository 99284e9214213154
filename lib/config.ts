/**
 * Deployment settings, read from CDK context (`cdk.json`, or `cdk deploy -c key=value`). Context given
 * on the command line always arrives as a string, from cdk.json it may be a number, boolean or array:
 * every reader accepts both, and a value that does not parse fails the synth with the key's name
 * rather than deploying a default the operator did not ask for.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { API, DEFAULT_INBOX_TTL_DAYS, DEFAULT_RESOURCE_PREFIX, SWEEPER } from './definitions.js';

export interface RatchetConfig {
  /** Start of every physical name (tables, queues, secrets): one per stack in an account and region. */
  readonly resourcePrefix: string;
  /** SNS topics besides the stack's own whose messages the edge accepts (and may confirm). */
  readonly extraTopicArns: readonly string[];
  readonly inboxTtlDays: number;
  /** Comma-separated; undefined leaves POSTMARK_ALLOWED_IPS unset (the module's own default). */
  readonly postmarkAllowedIps: string | undefined;
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly snsMaxReceivesPerSecond: number;
  readonly createConfigurationSet: boolean;
  readonly softBounceLimit: number | undefined;
  readonly softBounceWindowDays: number | undefined;
  readonly sweepAfterSeconds: number;
  readonly logRetention: RetentionDays;
  /** Subscribed to the alarm topic (AWS sends a confirmation mail first). */
  readonly alarmEmail: string | undefined;
}

export const DEFAULT_LOG_RETENTION_DAYS = RetentionDays.ONE_MONTH;

export function readConfig(node: Node): RatchetConfig {
  const get = (key: string): unknown => node.tryGetContext(key);

  const throttleRateLimit = positiveNumber(get, 'throttleRateLimit') ?? API.throttleRateLimit;
  const throttleBurstLimit = positiveInteger(get, 'throttleBurstLimit') ?? API.throttleBurstLimit;
  const snsMaxReceivesPerSecond =
    positiveInteger(get, 'snsMaxReceivesPerSecond') ??
    Math.max(1, Math.min(API.snsMaxReceivesPerSecond, Math.floor(throttleRateLimit / 2)));
  if (snsMaxReceivesPerSecond > throttleRateLimit) {
    // SNS treats the stage's 429 as delivered: pacing above the limit would drop SES events silently.
    throw new Error(
      `context snsMaxReceivesPerSecond (${snsMaxReceivesPerSecond}) must not exceed throttleRateLimit (${throttleRateLimit})`,
    );
  }

  const retentionDays = positiveInteger(get, 'logRetentionDays');
  if (retentionDays !== undefined && !Object.values(RetentionDays).includes(retentionDays)) {
    throw new Error(`context logRetentionDays (${retentionDays}) is not a CloudWatch Logs retention period`);
  }

  const postmarkIps = list(get, 'postmarkAllowedIps');

  return {
    resourcePrefix: resourcePrefix(get),
    extraTopicArns: list(get, 'extraTopicArns') ?? [],
    inboxTtlDays: positiveInteger(get, 'inboxTtlDays') ?? DEFAULT_INBOX_TTL_DAYS,
    postmarkAllowedIps: postmarkIps && postmarkIps.length > 0 ? postmarkIps.join(',') : undefined,
    throttleRateLimit,
    throttleBurstLimit,
    snsMaxReceivesPerSecond,
    createConfigurationSet: boolean(get, 'createConfigurationSet') ?? true,
    softBounceLimit: positiveInteger(get, 'softBounceLimit'),
    softBounceWindowDays: positiveInteger(get, 'softBounceWindowDays'),
    sweepAfterSeconds: positiveInteger(get, 'sweepAfterSeconds') ?? SWEEPER.resendAfterSeconds,
    logRetention: (retentionDays as RetentionDays | undefined) ?? DEFAULT_LOG_RETENTION_DAYS,
    alarmEmail: email(get, 'alarmEmail'),
  };
}

type Getter = (key: string) => unknown;

/** A plausible single address; SNS checks the rest by mailing a confirmation link. */
function email(get: Getter, key: string): string | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  if (typeof value !== 'string' || !/^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(value.trim())) {
    throw new Error(`context ${key} must be one email address, got ${JSON.stringify(value)}`);
  }
  return value.trim();
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

function isUnset(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function positiveNumber(get: Getter, key: string): number | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`context ${key} must be a positive number, got ${JSON.stringify(value)}`);
  return n;
}

function positiveInteger(get: Getter, key: string): number | undefined {
  const n = positiveNumber(get, key);
  if (n !== undefined && !Number.isInteger(n)) throw new Error(`context ${key} must be a whole number, got ${n}`);
  return n;
}

function boolean(get: Getter, key: string): boolean | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`context ${key} must be true or false, got ${JSON.stringify(value)}`);
}

/** A comma-separated string or an array of strings; blanks dropped. */
function list(get: Getter, key: string): string[] | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!items || !items.every((item): item is string => typeof item === 'string')) {
    throw new Error(`context ${key} must be a comma-separated string or an array of strings`);
  }
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
