/** Client configuration: explicit options first, then SUPPRESSION_TABLE, AWS_REGION, DYNAMODB_ENDPOINT, TOPIC_ALIASES. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseTopicAliases, type TopicAliases } from '../core/topics.js';

export interface SuppressionClientOptions {
  /** Default: `SUPPRESSION_TABLE`, else `ratchet-suppressions` (the default stack's name). */
  tableName?: string;
  /** Default: `AWS_REGION`, else `us-east-1`. Ignored when `client` is given. */
  region?: string;
  /** Default: `DYNAMODB_ENDPOINT` (dynalite, LocalStack). Ignored when `client` is given. */
  endpoint?: string;
  /** Your own DynamoDB client (credentials, retries, tracing). */
  client?: DynamoDBClient;
  /**
   * `canonical=alias,...` as the stack's TOPIC_ALIASES (default: that variable), so a canonical name
   * (`sendgrid:group:4242`) passed as `topic` finds the record stored under its alias.
   */
  topicAliases?: string;
  /** BatchGetItem calls in flight at once for `filterSendable`. Default 8. */
  concurrency?: number;
  /** Attempts per batch while DynamoDB returns UnprocessedKeys. Default 10. */
  maxAttempts?: number;
  /** The reputation table the brake reads. Default: `REPUTATION_TABLE`, else `ratchet-reputation`. */
  reputationTable?: string;
}

export interface ResolvedConfig {
  client: DynamoDBClient;
  tableName: string;
  aliases: TopicAliases;
  concurrency: number;
  maxAttempts: number;
}

export const DEFAULT_TABLE = 'ratchet-suppressions';

export function resolveConfig(
  options: SuppressionClientOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedConfig {
  const endpoint = options.endpoint ?? (env['DYNAMODB_ENDPOINT'] || undefined);
  const client =
    options.client ??
    new DynamoDBClient({
      region: options.region ?? env['AWS_REGION'] ?? 'us-east-1',
      // An emulator needs some credentials, never real ones.
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    });
  const concurrency = options.concurrency ?? 8;
  const maxAttempts = options.maxAttempts ?? 10;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError('concurrency must be a positive whole number');
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new RangeError('maxAttempts must be a positive whole number');
  return {
    client,
    tableName: options.tableName ?? env['SUPPRESSION_TABLE'] ?? DEFAULT_TABLE,
    aliases: parseTopicAliases(options.topicAliases ?? env['TOPIC_ALIASES']),
    concurrency,
    maxAttempts,
  };
}
