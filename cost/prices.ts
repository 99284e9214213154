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
   * Deliveries from a standard topic to an SQS queue: $0. The SQS requests they cause (SNS's
   * SendMessage on the feed queue) are billed by SQS, and priced as such in the model.
   *
   * Source: AWS's own price list, the Price List API offer file for `AmazonSNS`
   * (https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonSNS/current/index.json), which is
   * what https://aws.amazon.com/sns/pricing/ is rendered from. Usage type `DeliveryAttempts-SQS`,
   * price dimension description "There is no charge for SQS Notifications", pricePerUnit USD 0, in
   * every tier.
   * Checked on 2026-12-02 through the stored public copies that quote that entry word for word: an
   * AWS bill line-item sample (usage type "APN1-DeliveryAttempts-SQS", description "There is no
   * charge for SQS Notifications", rate 0) and an architecture review quoting the Price List API at
   * publicationDate 2026-02-11 ("SQS deliveries free"). The HTML pricing page itself is not among the
   * stored copies and the network is closed; the offer file is the machine-readable form of the same
   * prices, so a price change there is a change on the page.
   * Were it ever charged at the HTTP/S rate, every SES event would add $0.60 per million × 0.8 (the
   * SES share) = $0.48 to the all-in totals; `npm run cost` prints those totals beside the goal.
   */
  snsSqsDelivery: {
    usd: 0,
    per: 'delivery to SQS ("There is no charge for SQS Notifications")',
    source:
      'AWS Price List API, AmazonSNS, usage type DeliveryAttempts-SQS (https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonSNS/current/index.json)',
  },
} satisfies Record<string, Price>;
