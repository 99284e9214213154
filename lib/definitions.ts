/**
 * What the CDK stack (and the local runtime standing in for it) needs to size and schedule things:
 * memory, timeouts, queue sizing and throttles. The runtime's own facts (table keys and attributes,
 * resource names, the sweeper's backoff, the body cap) live under lambdas/ and are re-exported here,
 * so dependencies point one way: lib → lambdas. Pure data: no CDK and no SDK imports.
 */
import { QUEUE_NAMES } from '../lambdas/adapters/tables.js';
import { MAX_BODY_BYTES, SWEEPER_BACKOFF } from '../lambdas/adapters/runtime-defaults.js';

export {
  DEFAULT_INBOX_TTL_DAYS,
  DEFAULT_RESOURCE_PREFIX,
  INBOX_TABLE,
  resourceNames,
  SUPPRESSION_TABLE,
} from '../lambdas/adapters/tables.js';

export const CONSUMER = {
  timeoutSeconds: 30,
  memoryMb: 512,
  batchSize: 10,
  maxBatchingWindowSeconds: 1,
  maxConcurrency: 5,
} as const;

export const QUEUE = {
  ...QUEUE_NAMES,
  maxReceiveCount: 5,
  /** At least 6x the consumer timeout, as AWS recommends for SQS event sources. */
  visibilityTimeoutSeconds: CONSUMER.timeoutSeconds * 6,
  retentionDays: 14,
  deadLetterRetentionDays: 14,
} as const;

export const EDGE = {
  /** Well under SNS's 15 s delivery timeout, so a slow dependency surfaces as our 5xx rather than SNS's timeout. */
  timeoutSeconds: 10,
  memoryMb: 512,
  maxBodyBytes: MAX_BODY_BYTES,
} as const;

export const SWEEPER = {
  ...SWEEPER_BACKOFF,
  scheduleMinutes: 5,
  timeoutSeconds: 60,
  memoryMb: 256,
} as const;

/**
 * HTTP API `$default` stage throttling, across all routes (context `throttleRateLimit`,
 * `throttleBurstLimit` override it). Providers retry a 429 later, except SNS: it counts every
 * 2xx-4xx answer as delivered, so a throttled SES notification would be lost. The SES topic's HTTPS
 * subscription therefore paces itself below the stage limit (context `snsMaxReceivesPerSecond`).
 */
export const API = {
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  snsMaxReceivesPerSecond: 50,
} as const;
