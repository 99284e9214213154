/**
 * The AWS limits `npm run capacity` holds a deployment against, each with the page that states it and
 * the sentence quoted from it, the way cost/prices.ts cites prices. Defaults for a standard account in
 * us-east-1; most are soft quotas an account can raise, which the model cannot see: pass your own with
 * a profile (`limits` overrides) when yours differ. Checked on the date below through the stored
 * public copies of the pages (the network is closed here).
 */
export const LIMITS_CHECKED = '2026-12-03';

export interface Limit {
  value: number;
  unit: string;
  source: string;
  quote: string;
}

export const AWS_LIMITS = {
  lambdaAccountConcurrency: {
    value: 1000,
    unit: 'concurrent executions per Region (shared by every function in the account)',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/limits.html',
    quote: 'Concurrent executions | 1,000 | Tens of thousands',
  },
  lambdaUnreservedMinimum: {
    value: 100,
    unit: 'concurrent executions that must stay unreserved',
    source: 'https://docs.aws.amazon.com/lambda/latest/api/API_PutFunctionConcurrency.html',
    quote:
      "You can reserve concurrency for as many functions as you like, as long as you leave at least 100 simultaneous executions unreserved for functions that aren't configured with a per-function limit.",
  },
  /** How fast an SQS event source adds concurrent batches while messages are waiting. */
  sqsPollerStart: {
    value: 5,
    unit: 'concurrent batches when messages first arrive',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html',
    quote:
      'When messages are available, Lambda starts processing five batches at a time with five concurrent invocations of your function.',
  },
  sqsPollerScalingPerMinute: {
    value: 300,
    unit: 'more concurrent batches per minute',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html',
    quote:
      'If messages are still available, Lambda increases the number of processes that are reading batches by up to 300 more instances per minute.',
  },
  sqsMaximumConcurrency: {
    value: 1000,
    unit: 'MaximumConcurrency of one SQS event source mapping, at most (at least 2)',
    source: 'https://docs.aws.amazon.com/lambda/latest/api/API_ScalingConfig.html',
    quote:
      'MaximumConcurrency — Limits the number of concurrent instances that the Amazon SQS event source can invoke. Valid Range: Minimum value of 2. Maximum value of 1000.',
  },
  sqsInFlight: {
    value: 120_000,
    unit: 'in-flight messages per standard queue',
    source: 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html',
    quote:
      'For most standard queues (depending on queue traffic and message backlog), there can be a maximum of approximately 120,000 in flight messages (received from a queue by a consumer, but not yet deleted from the queue).',
  },
  dynamoPartitionWrites: {
    value: 1000,
    unit: 'write units per second on one partition (one key at most)',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
    quote: 'each individual partition is limited to 1,000 write units per second and 3,000 read units per second.',
  },
  dynamoPartitionReads: {
    value: 3000,
    unit: 'read units per second on one partition (one key at most)',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
    quote: 'each individual partition is limited to 1,000 write units per second and 3,000 read units per second.',
  },
  /** A new on-demand table, and any table going past twice its previous peak within 30 minutes. */
  dynamoOnDemandNewTableWrites: {
    value: 4000,
    unit: 'write units per second a new on-demand table sustains at once (then twice the previous peak)',
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/pre-warming-on-demand-capacity-mode.html',
    quote:
      'New on-demand tables will be able to sustain up to 4,000 writes per second and 12,000 reads per second. [...] throttling can still occur if the throughput exceeds twice the previous peak within the same 30 minutes.',
  },
  /** SES publishes each event to the topic; the topic's account quota is the ceiling of what reaches the feed. */
  snsPublishPerSecond: {
    value: 30_000,
    unit: 'messages published per second per account, us-east-1 standard topics',
    source: 'https://docs.aws.amazon.com/general/latest/gr/sns.html',
    quote: 'Publish API throttling per account | US East (N. Virginia) Region | 30,000 messages per second',
  },
  /** SNS → SQS: a delivery SQS refuses is retried, not lost, so a throttled queue delays events only. */
  snsSqsRetryDays: {
    value: 23,
    unit: 'days SNS retries a delivery to an SQS queue (100,015 attempts)',
    source: 'https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html',
    quote:
      'AWS managed endpoints | AWS Lambda, Amazon SQS | 3 times, without delay | 2 times, 1 second apart | 10 times, with exponential backoff, from 1 second to 20 seconds | 100,000 times, 20 seconds apart | 100,015 times, over 23 days',
  },
  apiGatewayAccountRps: {
    value: 10_000,
    unit: 'requests per second per account per Region, every API together',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    quote:
      'Throttle quota per account, per Region across HTTP APIs, REST APIs, WebSocket APIs, and WebSocket callback APIs | 10,000 requests per second (RPS)',
  },
} as const satisfies Record<string, Limit>;

/**
 * What each provider documents about the rate of its suppression API (the calls the sync worker makes,
 * one per change), from /work/shared/reference/provider-suppression-apis.md and the adapters'
 * own citations (lambdas/adapters/sync/*). `undefined`: the provider publishes no number.
 */
export const PROVIDER_RATE_LIMITS: Readonly<
  Record<'ses' | 'sendgrid' | 'postmark' | 'mailgun' | 'resend', { perSecond?: number; note: string; source: string }>
> = {
  ses: {
    note: 'not published per operation; throttling answers 429 TooManyRequestsException',
    source: 'https://docs.aws.amazon.com/ses/latest/APIReference-V2/CommonErrors.html',
  },
  sendgrid: {
    note: 'per endpoint, not published as a number; read from X-RateLimit-Limit/-Remaining/-Reset',
    source: 'https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/rate-limits',
  },
  postmark: {
    note: 'not published; answers 429',
    source: 'https://postmarkapp.com/developer/api/overview',
  },
  mailgun: {
    note: 'not specified; answers 429',
    source: 'https://documentation.mailgun.com/docs/mailgun/api-reference/',
  },
  resend: {
    perSecond: 2,
    note: '2 requests per second per team by default',
    source: 'https://resend.com/docs/api-reference/rate-limit',
  },
};
