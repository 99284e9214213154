/**
 * The in-repo reader (the Lambda-side twin of `@ratchet-email/ratchet/client`, which sending code should import):
 *
 *   import { isSuppressed } from './lambdas/adapters/is-suppressed.js';
 *   if (await isSuppressed(to, { topic: 'newsletter' })) return; // do not send
 *
 * A strongly consistent read of the few attributes the answer needs (core/suppression/answer.ts,
 * shared with the client), brought to today's shape by the table's reader (core/suppression/schema.ts).
 * A topic is read through TOPIC_ALIASES (`aliases`, else the environment's), as the client reads it: an
 * opt-out stored under a provider's scope name before the alias was set still answers for the topic.
 * A read failure throws, so callers decide whether to fail closed.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeRecipient } from '../core/event.js';
import { ANSWER_ATTRIBUTES, refusalReason, type SendQuestion } from '../core/suppression/answer.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import { isTopicName, parseTopicAliases, resolveTopic, storedTopicNames, type TopicAliases } from '../core/topics.js';
import { createDocumentClient } from './aws-clients.js';
import { SUPPRESSION_TABLE } from './tables.js';

let defaultClient: DynamoDBDocumentClient | undefined;

export interface SuppressionReaderOptions extends SendQuestion {
  client?: DynamoDBDocumentClient;
  tableName?: string;
  /** @default TOPIC_ALIASES from the environment */
  aliases?: TopicAliases;
}

export async function isSuppressed(email: string, options: SuppressionReaderOptions = {}): Promise<boolean> {
  const client =
    options.client ??
    (defaultClient ??= createDocumentClient({
      region: process.env.AWS_REGION ?? 'us-east-1',
      dynamoEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    }));
  if (options.topic !== undefined && !isTopicName(options.topic)) throw new TypeError('topic is not a topic name');
  const aliases = options.aliases ?? parseTopicAliases(process.env.TOPIC_ALIASES);
  // As the client asks (lambdas/client/suppressions.ts): a canonical name is its alias's question.
  const topic = options.topic === undefined ? undefined : resolveTopic(options.topic, aliases);
  const names: Record<string, string> = Object.fromEntries(ANSWER_ATTRIBUTES.map((name, i) => [`#a${i}`, name]));
  // Every name the topic may be stored under: its own, and the canonical names it is now the alias of.
  const stored = topic === undefined ? [] : storedTopicNames(topic, aliases);
  if (topic !== undefined) names['#topics'] = 'topics';
  stored.forEach((name, i) => {
    names[`#topic${i}`] = name;
  });
  const result = await client.send(
    new GetCommand({
      TableName: options.tableName ?? process.env.SUPPRESSION_TABLE ?? SUPPRESSION_TABLE.defaultName,
      Key: { [SUPPRESSION_TABLE.partitionKey]: normalizeRecipient(email) },
      ProjectionExpression: [
        ...Object.keys(names).filter((n) => n.startsWith('#a')),
        ...stored.map((_, i) => `#topics.#topic${i}`),
      ].join(', '),
      ExpressionAttributeNames: names,
      ConsistentRead: true,
    }),
  );
  const item = result.Item && upgradeSuppressionRecord(result.Item);
  return refusalReason(item, { ...options, topic }, aliases) !== undefined;
}
