/** Records control actions already taken (SNS subscription confirmations), in the inbox table under `control#`. */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { ControlLedger } from '../core/pipeline/ports.js';
import { INBOX_TABLE } from './tables.js';

export class DynamoControlLedger implements ControlLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly ttlSeconds: number,
  ) {}

  async isDone(key: string): Promise<boolean> {
    try {
      const result = await this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { [INBOX_TABLE.partitionKey]: `control#${key}` },
          ConsistentRead: true,
        }),
      );
      return result.Item !== undefined;
    } catch (cause) {
      throw new TransientError('control ledger read failed', { cause });
    }
  }

  async markDone(key: string, nowMs: number): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            [INBOX_TABLE.partitionKey]: `control#${key}`,
            doneAt: nowMs,
            [INBOX_TABLE.ttlAttribute]: Math.floor(nowMs / 1000) + this.ttlSeconds,
          },
        }),
      );
    } catch (cause) {
      throw new TransientError('control ledger write failed', { cause });
    }
  }
}
