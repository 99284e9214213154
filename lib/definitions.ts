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
 * Every function's possible concurrency is bounded, and the bounds add up to at most the budget
 * (context `concurrencyBudget`), a share of the account's: `cdk synth` refuses more (lib/concurrency.ts
 * reads the bounds from the template, so a new function is counted without naming it anywhere).
 *
 * - Lambda's default concurrency quota is 1,000 per account and region, shared by every function in it
 *   ("Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). Ratchet
 *   keeps to a fifth by default, so a campaign it receives cannot throttle the account's other work.
 * - SQS event sources are bounded by MaximumConcurrency (2 to 1,000); a function invoked any other way
 *   (the edge behind its front door, a scheduled function) by its reserved concurrency.
 */
export const CONCURRENCY = {
  defaultBudget: 200,
  accountDefault: 1_000,
  /** CloudFormation's range for ScalingConfig.MaximumConcurrency. */
  minimumMaxConcurrency: 2,
} as const;

const DAY_SECONDS = 86_400;

/** What the feed queue's numbers are derived from (deriveFeedQueue). */
export interface FeedSizing {
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly timeoutSeconds: number;
  readonly maxBatchingWindowSeconds: number;
  readonly plannedBatchSeconds: number;
  readonly worstBacklogEvents: number;
  readonly drainMargin: number;
  readonly transientToleranceSeconds: number;
  readonly deadLetterRetentionDays: number;
  readonly minimumDeadLetterDaysLeft: number;
}

/** The SES feed's sizing inputs; the queue's receives and retention are derived from them below. */
const FEED_SIZING = {
  batchSize: 10,
  maxConcurrency: 10,
  timeoutSeconds: 30,
  maxBatchingWindowSeconds: 1,
  /**
   * Seconds one batch of 10 takes on AWS, for planning: 0.25 s, about 13x the feed handler's median on
   * the local stack (19.6 ms per batch of 10, `npm run cost`, BENCHMARKS.md), since each of its one
   * SendMessageBatch and ten concurrent PutItems is a network round trip on AWS.
   */
  plannedBatchSeconds: 0.25,
  /** The worst backlog planned for: a whole day of the `enterprise` profile (50 M events) queued at once. */
  worstBacklogEvents: 50_000_000,
  /** The backlog must drain within retention by at least this factor. */
  drainMargin: 2,
  /**
   * How long an envelope may keep failing for a transient reason (an invocation throttled because
   * something outside the budget used up the account's concurrency, a DynamoDB, SQS or certificate-host
   * outage) before it is dead-lettered: 6 h, hours past the 30-minute oldest-message alarm, so an
   * operator it pages can act before anything moves.
   */
  transientToleranceSeconds: 6 * 3_600,
  deadLetterRetentionDays: SES_DEAD_LETTERS.retentionDays,
  minimumDeadLetterDaysLeft: 10,
} as const;

/**
 * The feed queue's numbers, derived (checked at load: an input that breaks a rule throws):
 *
 *   visibility   = 6 x timeout + window                                (AWS's rule for SQS event sources)
 *   service rate = batchSize x maxConcurrency / plannedBatchSeconds    (envelopes per second)
 *   drain time   = worstBacklogEvents / service rate
 *   receives     = ceil(transientToleranceSeconds / visibility)
 *   exhaust      = receives x visibility                               (longest time spent failing)
 *   retention    = floor(deadLetterRetentionDays - minimumDeadLetterDaysLeft - exhaust), whole days
 *   rules: drain time x drainMargin <= retention; receives x visibility >= transientToleranceSeconds.
 *
 * Waiting in a backlog costs no receive: with MaximumConcurrency set, Lambda's pollers receive only what
 * the function can take, so a message the feed has no concurrency for stays on the queue, unreceived
 * ("Configuring maximum concurrency for Amazon SQS event sources",
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html; "Introducing maximum
 * concurrency of AWS Lambda functions when using Amazon SQS as an event source",
 * https://aws.amazon.com/blogs/compute/introducing-maximum-concurrency-of-aws-lambda-functions-when-using-amazon-sqs-as-an-event-source/).
 * What still costs receives is an invocation that fails or is throttled after the receive, which is what
 * `receives` spans. Expiry is the one path to loss on the feed (an expired message is deleted, not
 * dead-lettered), so retention is as long as the dead-letter queue's 10 days left allow.
 */
export function deriveFeedQueue(sizing: FeedSizing = FEED_SIZING) {
  const visibilityTimeoutSeconds = sizing.timeoutSeconds * 6 + sizing.maxBatchingWindowSeconds;
  const serviceRatePerSecond = (sizing.batchSize * sizing.maxConcurrency) / sizing.plannedBatchSeconds;
  const worstDrainSeconds = sizing.worstBacklogEvents / serviceRatePerSecond;
  const maxReceiveCount = Math.ceil(sizing.transientToleranceSeconds / visibilityTimeoutSeconds);
  const exhaustSeconds = maxReceiveCount * visibilityTimeoutSeconds;
  const retentionDays = Math.floor(
    sizing.deadLetterRetentionDays - sizing.minimumDeadLetterDaysLeft - exhaustSeconds / DAY_SECONDS,
  );
  if (worstDrainSeconds * sizing.drainMargin > retentionDays * DAY_SECONDS)
    throw new Error(
      `SES feed: a ${sizing.worstBacklogEvents}-event backlog drains in ${Math.round(worstDrainSeconds)} s, not ${sizing.drainMargin}x within ${retentionDays} days of retention`,
    );
  return { visibilityTimeoutSeconds, serviceRatePerSecond, worstDrainSeconds, maxReceiveCount, retentionDays };
}

const FEED_QUEUE = deriveFeedQueue();

/**
 * The SES feed: the SES topic's SQS subscription (`<resourcePrefix>-ses-notifications`) and the function
 * that drains it with the edge's code (lambdas/ses-feed.ts, ReportBatchItemFailures).
 *
 * - Batches of 10 (the most one ReceiveMessage returns): the edge verifies the 10 envelopes
 *   concurrently, sends all their events in one SendMessageBatch, then runs the 10 conditional puts
 *   concurrently, so a batch costs about what one HTTPS delivery does. A one-second window lets a
 *   trickle fill batches instead of paying one invocation per event.
 * - `maxConcurrency` (the event source's MaximumConcurrency) bounds the DynamoDB and SQS rate a burst can
 *   cause; a backlog waits on the queue, unreceived, which the oldest-message alarm watches.
 * - Receives and retention: derived above (deriveFeedQueue). A message moved to the dead-letter queue
 *   keeps its original enqueue time, so it lives there for `deadLetterRetentionDays` minus however long
 *   it spent on the feed: at least `minimumDeadLetterDaysLeft`.
 */
export const SES_FEED = {
  suffix: SES_QUEUE_NAMES.feedSuffix,
  batchSize: FEED_SIZING.batchSize,
  maxBatchingWindowSeconds: FEED_SIZING.maxBatchingWindowSeconds,
  maxConcurrency: FEED_SIZING.maxConcurrency,
  /** Ten envelopes, one certificate fetch at a cold start (2 s at most), one send, ten puts, with SDK retries. */
  timeoutSeconds: FEED_SIZING.timeoutSeconds,
  memoryMb: 512,
  plannedBatchSeconds: FEED_SIZING.plannedBatchSeconds,
  worstBacklogEvents: FEED_SIZING.worstBacklogEvents,
  transientToleranceSeconds: FEED_SIZING.transientToleranceSeconds,
  /** At least 6x the function timeout plus the batching window, as AWS recommends for SQS event sources. */
  visibilityTimeoutSeconds: FEED_QUEUE.visibilityTimeoutSeconds,
  maxReceiveCount: FEED_QUEUE.maxReceiveCount,
  retentionDays: FEED_QUEUE.retentionDays,
  deadLetterRetentionDays: FEED_SIZING.deadLetterRetentionDays,
  /** The least time a dead-lettered message has left in the dead-letter queue. */
  minimumDeadLetterDaysLeft: FEED_SIZING.minimumDeadLetterDaysLeft,
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
