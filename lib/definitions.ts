/**
 * What the CDK stack (and the local runtime standing in for it) needs to size and schedule things:
 * memory, timeouts, queue sizing and throttles. The runtime's own facts (table keys and attributes,
 * resource names, the body cap) live under lambdas/ and are re-exported here,
 * so dependencies point one way: lib → lambdas. Pure data: no CDK and no SDK imports.
 */

import { MAX_BODY_BYTES } from '../lambdas/adapters/runtime-defaults.js';
import { QUEUE_NAMES, SES_QUEUE_NAMES } from '../lambdas/adapters/tables.js';

export {
  DEFAULT_INBOX_TTL_DAYS,
  DEFAULT_RESOURCE_PREFIX,
  INBOX_TABLE,
  REPUTATION_TABLE,
  resourceNames,
  SUPPRESSION_TABLE,
} from '../lambdas/adapters/tables.js';
export { REPUTATION } from './reputation-definitions.js';

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
  ...QUEUE_NAMES,
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
  maxBodyBytes: MAX_BODY_BYTES,
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
 * The alarms evaluate periods of this length. The queue-age alarm fires when the oldest queued event is
 * `queueAgeSeconds` old; `ratchet doctor` reads the same metric the same way against the same number.
 */
export const ALARMS = { periodSeconds: 5 * 60, queueAgeSeconds: 30 * 60 } as const;

/** The SNS subscription's dead-letter queue keeps what SNS gave up on for this long (the SQS maximum). */
export const SES_DEAD_LETTERS = { suffix: SES_QUEUE_NAMES.deadLetterSuffix, retentionDays: 14 } as const;

/**
 * The Function URL front door has no per-route throttle: the edge's reserved concurrency is the limit
 * (a throttled invocation answers 429). Sized from the SNS pace, assuming an edge request takes at
 * most `secondsPerRequest` (p99 with a cold start), times a margin, plus room for the other providers.
 */
export const FUNCTION_URL = { secondsPerRequest: 0.5, sesMargin: 2 } as const;

/**
 * The SES feed: the SES topic's SQS subscription (`<resourcePrefix>-ses-notifications`) and the function
 * that drains it with the edge's code (lambdas/ses-feed.ts, ReportBatchItemFailures).
 *
 * - Batches of 10 (the most one ReceiveMessage returns): the edge verifies the 10 envelopes
 *   concurrently, sends all their events in one SendMessageBatch, then runs the 10 conditional puts
 *   concurrently, so a batch costs about what one HTTPS delivery does. A one-second window lets a
 *   trickle fill batches instead of paying one invocation per event.
 * - `maxConcurrency` bounds the DynamoDB and SQS rate a burst can cause (the ESM's own limit, min 2);
 *   a backlog waits on the queue, which the oldest-message alarm watches.
 * - Retention: a message moved to the dead-letter queue keeps its original enqueue time, so it lives
 *   there for `deadLetterRetentionDays` minus however long it spent on the feed. The feed keeps a
 *   message at most `retentionDays`, so even one that used up every receive has at least
 *   `deadLetterRetentionDays - retentionDays` = 10 days left in the dead-letter queue.
 */
export const SES_FEED = {
  suffix: SES_QUEUE_NAMES.feedSuffix,
  batchSize: 10,
  maxBatchingWindowSeconds: 1,
  maxConcurrency: 10,
  /** Ten envelopes, one certificate fetch at a cold start (2 s at most), one send, ten puts, with SDK retries. */
  timeoutSeconds: 30,
  memoryMb: 512,
  /** At least 6x the function timeout plus the batching window, as AWS recommends for SQS event sources. */
  visibilityTimeoutSeconds: 30 * 6 + 1,
  /**
   * 20 receives x 181 s: about an hour of transient failures (a DynamoDB or Secrets Manager outage, the
   * certificate host) ridden out before SQS moves a message to the dead-letter queue, the same order as
   * SNS's HTTPS retry policy gave.
   */
  maxReceiveCount: 20,
  /** At most 14 - 3 = 11 days, so at least `minimumDeadLetterDaysLeft` with a day to spare. */
  retentionDays: 3,
  deadLetterRetentionDays: SES_DEAD_LETTERS.retentionDays,
  /** The least time a dead-lettered message has left in the dead-letter queue. */
  minimumDeadLetterDaysLeft: 10,
} as const;

/**
 * `ratchet console` (lib/console/): a page of the lists, how long one page may read before it answers
 * with what it found (a Scan examines every item, match or not: a sparse filter on a large table stops
 * here and offers the next page), and the bulk reactivation's bounds (at most `bulkMax` records per
 * confirmation, `bulkConcurrency` guarded writes at a time: far under a partition's 1,000 WCU/s, since
 * every write is to a different address).
 */
export const CONSOLE = {
  pageSize: 50,
  pageDeadlineMs: 1_500,
  bulkMax: 10_000,
  bulkConcurrency: 8,
  /** The bulk count and the health page's inbox scan stop here. */
  scanDeadlineMs: 20_000,
} as const;
