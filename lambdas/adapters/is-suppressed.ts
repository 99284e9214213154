/**
 * The in-repo reader (the Lambda-side twin of `@ratchet-email/ratchet/client`, which sending code should import):
 *
 *   import { isSuppressed } from './lambdas/adapters/is-suppressed.js';
 *   if (await isSuppressed(to, { topic: 'newsletter' })) return; // do not send
 *
 * A strongly consistent read of the few attributes the answer needs (core/suppression/answer.ts,
 * shared with the client), brought to today's shape by the table's reader (core/suppression/schema.ts).
 * A read failure throws, so callers decide whether to fail closed.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeRecipient } from '../core/event.js';
import { ANSWER_ATTRIBUTES, refusalReason, type SendQuestion } from '../core/suppression/answer.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import { isTopicName } from '../core/topics.js';
import { createDocumentClient } from './aws-clients.js';
import { SUPPRESSION_TABLE } from './tables.js';

let defaultClient: DynamoDBDocumentClient | undefined;

export interface SuppressionReaderOptions extends SendQuestion {
  client?: DynamoDBDocumentClient;
  tableName?: string;
}

export async function isSuppressed(email: string, options: SuppressionReaderOptions = {}): Promise<boolean> {
  const client =
    options.client ??
    (defaultClient ??= createDocumentClient({
      region: process.env.AWS_REGION ?? 'us-east-1',
      dynamoEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    }));
  const { topic } = options;
  if (topic !== undefined && !isTopicName(topic)) throw new TypeError('topic is not a topic name');
  const names: Record<string, string> = Object.fromEntries(ANSWER_ATTRIBUTES.map((name, i) => [`#a${i}`, name]));
  if (topic !== undefined) Object.assign(names, { '#topics': 'topics', '#topic': topic });
  const result = await client.send(
    new GetCommand({
      TableName: options.tableName ?? process.env.SUPPRESSION_TABLE ?? SUPPRESSION_TABLE.defaultName,
      Key: { [SUPPRESSION_TABLE.partitionKey]: normalizeRecipient(email) },
      ProjectionExpression: [
        ...Object.keys(names).filter((n) => n.startsWith('#a')),
        ...(topic !== undefined ? ['#topics.#topic'] : []),
      ].join(', '),
      ExpressionAttributeNames: names,
      ConsistentRead: true,
    }),
  );
  return refusalReason(result.Item && upgradeSuppressionRecord(result.Item), options) !== undefined;
}
