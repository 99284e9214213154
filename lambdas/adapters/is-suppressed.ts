/**
 * What sending code calls before it mails anyone:
 *
 *   import { isSuppressed } from 'ratchet/lambdas/adapters/is-suppressed.js';
 *   if (await isSuppressed(to)) return; // do not send
 *
 * A strongly consistent read of one item by its normalized address. Anything but a record with
 * status "suppressed" means "may send"; a read failure throws, so callers decide whether to fail closed.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SUPPRESSION_TABLE } from './tables.js';
import { createDocumentClient } from './aws-clients.js';

let defaultClient: DynamoDBDocumentClient | undefined;

export interface SuppressionReaderOptions {
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
  const result = await client.send(
    new GetCommand({
      TableName: options.tableName ?? process.env.SUPPRESSION_TABLE ?? SUPPRESSION_TABLE.defaultName,
      Key: { [SUPPRESSION_TABLE.partitionKey]: email.trim().toLowerCase() },
      ProjectionExpression: '#status',
      ExpressionAttributeNames: { '#status': 'status' },
      ConsistentRead: true,
    }),
  );
  return result.Item?.status === 'suppressed';
}
