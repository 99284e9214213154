/**
 * AWS list prices used by `npm run cost`: us-east-1, on-demand, no free tier, in US dollars.
 * Checked on the date below against the pages cited; update the date when you update a number.
 */
export const PRICE_DATE = '2026-12-01';
export const PRICE_REGION = 'us-east-1';

export interface Price {
  usd: number;
  per: string;
  source: string;
}

export const PRICES = {
  lambdaRequest: { usd: 0.2 / 1e6, per: 'request', source: 'https://aws.amazon.com/lambda/pricing/' },
  /** Arm (Graviton) duration, first 7.5 billion GB-s/month. */
  lambdaArmGbSecond: { usd: 0.0000133334, per: 'GB-second (arm64)', source: 'https://aws.amazon.com/lambda/pricing/' },
  lambdaX86GbSecond: { usd: 0.0000166667, per: 'GB-second (x86_64)', source: 'https://aws.amazon.com/lambda/pricing/' },
  /** HTTP API, first 300 million requests/month, metered in 512 KB increments. */
  httpApiRequest: { usd: 1.0 / 1e6, per: 'request (≤ 512 KB)', source: 'https://aws.amazon.com/api-gateway/pricing/' },
  /** Function URLs carry no charge of their own: the Lambda request and duration are the whole bill. */
  functionUrlRequest: {
    usd: 0,
    per: 'request',
    source: 'https://aws.amazon.com/lambda/pricing/ (Function URLs: no additional charge)',
  },
  /** On-demand throughput after the November 2024 reduction. */
  dynamoWriteUnit: {
    usd: 0.625 / 1e6,
    per: 'write request unit (1 KB)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoReadUnit: {
    usd: 0.125 / 1e6,
    per: 'read request unit (4 KB strongly consistent)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoStorageGbMonth: {
    usd: 0.25,
    per: 'GB-month (Standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoPitrGbMonth: {
    usd: 0.2,
    per: 'GB-month of continuous backup',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  /** Standard queue; every 64 KB chunk of a request counts as one request. */
  sqsRequest: { usd: 0.4 / 1e6, per: 'request (64 KB chunk)', source: 'https://aws.amazon.com/sqs/pricing/' },
  logsIngestGb: {
    usd: 0.5,
    per: 'GB ingested (Standard log class)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  logsStorageGbMonth: {
    usd: 0.03,
    per: 'GB-month archived (compressed)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  snsPublish: { usd: 0.5 / 1e6, per: 'publish (64 KB chunk)', source: 'https://aws.amazon.com/sns/pricing/' },
  snsHttpDelivery: { usd: 0.6 / 1e6, per: 'HTTP/S delivery', source: 'https://aws.amazon.com/sns/pricing/' },
  /**
   * Deliveries from a standard topic to an SQS queue. Commonly quoted as free; the SQS requests they
   * cause (SNS's SendMessage on the feed queue) are billed by SQS, and priced as such in the model.
   *
   * NOT verified against AWS's own pricing page. Searched again on 2026-12-01 (docs corpus: "Amazon SNS
   * pricing deliveries to Amazon SQS queues free", "Amazon SNS pricing page standard topics notification
   * deliveries SQS Lambda free data transfer"; pages corpus: "aws.amazon.com/sns/pricing deliveries to
   * Amazon SQS queues are free", "SNS pricing deliveries to Amazon SQS and AWS Lambda no charge"): no
   * copy of https://aws.amazon.com/sns/pricing/ came back, so there is no quote from AWS to give here.
   * What did come back:
   * - AWS's SNS developer guide, "Amazon SNS message delivery retries"
   *   (https://docs.amazonaws.cn/en_us/sns/latest/dg/sns-message-delivery-retries.md): SQS and Lambda
   *   are "Amazon managed endpoints" with their own fixed delivery policy. It says nothing of price.
   * - The best secondary source, a FinOps blog post, "Amazon SNS Pricing: Why a Single Publish Can
   *   Bill as Four Charges" (factualminds.com, 2026-06-13,
   *   https://www.factualminds.com/blog/amazon-sns-pricing-publishes-fanout-protocols/): it agrees
   *   with this table on publishes ($0.50 per million, standard topics) and HTTP/S deliveries ($0.60
   *   per million), but the part returned does not state an SQS delivery price either way.
   * Check the pricing page before relying on this $0: charged like HTTP/S, every SES event adds $0.60
   * per million × 0.8 (the SES share) = $0.48 to the all-in totals; `npm run cost` prints the totals
   * that would give, beside the goal.
   */
  snsSqsDelivery: {
    usd: 0,
    per: 'delivery to SQS (unverified: see cost/prices.ts)',
    source: 'https://aws.amazon.com/sns/pricing/ (not reachable from here)',
  },
} satisfies Record<string, Price>;
