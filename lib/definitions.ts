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

/** Physical names for a prefix: the tables, the queues, and each provider's secret. */
export function resourceNames(prefix: string = DEFAULT_RESOURCE_PREFIX) {
  return {
    inboxTable: `${prefix}-inbox`,
    suppressionTable: `${prefix}-suppressions`,
    queue: `${prefix}-events`,
    deadLetterQueue: `${prefix}-events${QUEUE.deadLetterSuffix}`,
    /** What SNS could not deliver to the SES route (env `SES_DEAD_LETTER_QUEUE` holds this name). */
    sesDeadLetterQueue: `${prefix}${SES_DEAD_LETTERS.suffix}`,
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

/**
 * A busy queue is drained in batches of up to 100 (fewer invocations, fewer log lines and EMF records
 * per event); an idle queue's event waits at most the batching window before the consumer sees it.
 * Lambda requires a window of at least 1 s for batches above 10.
 */
export const CONSUMER = {
  timeoutSeconds: 30,
  memoryMb: 512,
  /** One ReceiveMessage call (the local poller): SQS returns at most 10. */
  batchSize: 10,
  /** The Lambda event source mapping's batch, gathered over several receives. */
  eventSourceBatchSize: 100,
  maxBatchingWindowSeconds: 5,
  maxConcurrency: 5,
} as const;

export const QUEUE = {
  defaultName: 'ratchet-events',
  deadLetterSuffix: '-dlq',
  maxReceiveCount: 5,
  /** At least 6x the consumer timeout plus the batching window, as AWS recommends for SQS event sources. */
  visibilityTimeoutSeconds: CONSUMER.timeoutSeconds * 6 + CONSUMER.maxBatchingWindowSeconds,
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
 * HTTP API throttling. `throttleRateLimit`/`throttleBurstLimit` (context) are the stage default, which
 * every route without its own settings gets: `POST /webhooks/{provider}` and the unsubscribe routes.
 * Providers retry a 429 later, except SNS: it counts every 2xx-4xx answer as delivered, so a throttled
 * SES notification would be lost. SES therefore has its own route, `POST /webhooks/ses`, with its own
 * limit (context `sesRouteRateLimit`/`sesRouteBurstLimit`), at least `SES_ROUTE_MARGIN` times the pace
 * the SNS subscription keeps (context `snsMaxReceivesPerSecond`). Route limits are separate token
 * buckets, so no other route's traffic can use up the SES route's.
 */
export const API = {
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  snsMaxReceivesPerSecond: 50,
  /** SNS's pacing is approximate and a retry storm after an outage arrives on top: twice the pace. */
  sesRouteMargin: 2,
  /** Each of GET and POST /unsubscribe/{token}: people clicking links, and mailbox providers' one-click POSTs. */
  unsubscribeRateLimit: 20,
  unsubscribeBurstLimit: 40,
  /** API Gateway's default per-account, per-region quota, shared by every API in the account. */
  accountRateLimit: 10_000,
} as const;

/**
 * Inbox rows live 30 days by default: far beyond every provider's retry horizon (SendGrid 24 h,
 * Mailgun 8 h, SNS 1 h) and every signature window (at most 48 h).
 */
export const DEFAULT_INBOX_TTL_DAYS = 30;
/** The largest signature window any provider can be configured with (48 h), plus a day. */
export const MIN_INBOX_TTL_DAYS = 3;

/** The SNS subscription's dead-letter queue keeps what SNS gave up on for this long (the SQS maximum). */
export const SES_DEAD_LETTERS = { suffix: '-ses-dead-letters', retentionDays: 14 } as const;

/**
 * The Function URL front door has no per-route throttle: the edge's reserved concurrency is the limit
 * (a throttled invocation answers 429). Sized from the SNS pace, assuming an edge request takes at
 * most `secondsPerRequest` (p99 with a cold start), times a margin, plus room for the other providers.
 */
export const FUNCTION_URL = { secondsPerRequest: 0.5, sesMargin: 2 } as const;
