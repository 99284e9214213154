/**
 * One source of truth for the tables and queues, read by the CDK stack, the local runtime and the
 * adapters. Pure data: no CDK and no SDK imports, so the Lambda bundles can include it for free.
 */

/**
 * Physical names start with this prefix (CDK context `resourcePrefix`), so two stacks can share an
 * account and region. The defaults below are the names with the default prefix, which is what the
 * local runtime, the CLI and `isSuppressed` fall back to when no name is given.
 */
export const DEFAULT_RESOURCE_PREFIX = 'ratchet';

/** Physical names for a prefix: the tables, the queue and its DLQ, and each provider's secret. */
export function resourceNames(prefix: string = DEFAULT_RESOURCE_PREFIX) {
  return {
    inboxTable: `${prefix}-inbox`,
    suppressionTable: `${prefix}-suppressions`,
    queue: `${prefix}-events`,
    deadLetterQueue: `${prefix}-events${QUEUE.deadLetterSuffix}`,
    secret: (provider: string) => `${prefix}/${provider}`,
  };
}

/** Inbox: one row per admitted event, keyed `provider#eventId`; also holds Mailgun token claims. */
export const INBOX_TABLE = {
  defaultName: 'ratchet-inbox',
  partitionKey: 'pk',
  /** Epoch seconds. DynamoDB TTL may lag by up to 48 h, so every condition also treats `expiresAt < now` as absent. */
  ttlAttribute: 'expiresAt',
  /**
   * Sparse GSI over rows not applied yet: the two attributes exist only while status is `pending`, so
   * the index holds just the rows the sweeper may need to re-send, ordered by when it should (`resendAt`,
   * epoch ms). The partition key is sharded so a busy edge never concentrates GSI writes on one partition.
   */
  pendingIndex: {
    name: 'pending',
    partitionKey: 'pendingShard',
    sortKey: 'resendAt',
    shards: 8,
  },
} as const;

/** Suppression list: the public contract sending code reads (see README). */
export const SUPPRESSION_TABLE = {
  defaultName: 'ratchet-suppressions',
  partitionKey: 'email',
} as const;

export const CONSUMER = {
  timeoutSeconds: 30,
  memoryMb: 512,
  batchSize: 10,
  maxBatchingWindowSeconds: 1,
  maxConcurrency: 5,
} as const;

export const QUEUE = {
  defaultName: 'ratchet-events',
  deadLetterSuffix: '-dlq',
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
  /** Bodies above this are answered 413 before anything is parsed. */
  maxBodyBytes: 1024 * 1024,
} as const;

export const SWEEPER = {
  /** A row not applied this long after it was stored is re-enqueued; the wait doubles after each re-send. */
  resendAfterSeconds: 5 * 60,
  /** The doubling stops here: a row still failing is re-sent at most daily... */
  maxResendIntervalSeconds: 24 * 60 * 60,
  /**
   * ...and at most this many times: with the defaults the last re-send comes about 2.8 days after the
   * put, and the row is given up on (left to the DLQ and an operator) if still unapplied a day later.
   */
  maxResends: 10,
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

/**
 * Inbox rows live 30 days by default: far beyond every provider retry horizon and replay window (SNS 1 h,
 * Mailgun 9 h, SendGrid 25 h; at most 48 h) and beyond TTL deletion lag (up to 48 h). Configurable.
 */
export const DEFAULT_INBOX_TTL_DAYS = 30;
