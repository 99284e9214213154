/**
 * Single-use tokens (Mailgun) claimed with one conditional put in the inbox table, under their own
 * `nonce#` key space. Never in memory: a Lambda's memory is per instance and gone on a cold start.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { NonceStore } from '../core/provider.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { INBOX_TABLE } from './tables.js';

export class DynamoNonceStore implements NonceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(namespace: string, token: string, fingerprint: string, expiresAtMs: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            [INBOX_TABLE.partitionKey]: `nonce#${namespace}#${token}`,
            fingerprint,
            claimedAt: this.now(),
            [INBOX_TABLE.ttlAttribute]: Math.ceil(expiresAtMs / 1000),
          },
          // Free, expired, or claimed by this very body before (the provider retrying our 5xx).
          ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :now OR fingerprint = :fp',
          ExpressionAttributeNames: { '#pk': INBOX_TABLE.partitionKey, '#ttl': INBOX_TABLE.ttlAttribute },
          ExpressionAttributeValues: { ':now': Math.floor(this.now() / 1000), ':fp': fingerprint },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw new TransientError('nonce claim failed', { cause: error });
    }
  }
}
