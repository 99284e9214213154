/**
 * The sync worker's reads of the suppression table, batched: every read asked for in the same turn of
 * the event loop goes out as one BatchGetItem, so a batch of 50 messages costs one read call, not 50.
 * Consistent reads, each address once (BatchGetItem refuses a repeated key), through the table's
 * versioned reader like every read of it.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import { readSuppressionItem } from './dynamodb-suppression-item.js';
import { SUPPRESSION_TABLE } from './tables.js';

/** BatchGetItem's limit per request (16 MB and 100 items; a suppression item is a few KB at most). */
const BATCH_GET_MAX = 100;

type Waiter = { resolve: (item?: Record<string, unknown>) => void; reject: (e: unknown) => void };

export class BatchedSuppressionReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private pending?: Map<string, Waiter[]>;

  /**
   * One read, batched with the others of this turn: a worker's batch of 50 messages reads its 50
   * records with one BatchGetItem (consistent, at most 100 keys, each address once) instead of 50 GetItems.
   */
  read(email: string): Promise<Record<string, unknown> | undefined> {
    if (this.pending === undefined) {
      this.pending = new Map();
      setImmediate(() => void this.flush());
    }
    const waiting = this.pending;
    return new Promise((resolve, reject) => {
      const list = waiting.get(email) ?? [];
      list.push({ resolve, reject });
      waiting.set(email, list);
    });
  }

  private async flush(): Promise<void> {
    const waiting = this.pending!;
    this.pending = undefined;
    const keys = [...waiting.keys()];
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      const chunk = keys.slice(i, i + BATCH_GET_MAX);
      try {
        const found = await this.batchGet(chunk);
        for (const email of chunk) for (const w of waiting.get(email)!) w.resolve(found.get(email));
      } catch (cause) {
        const error = new TransientError('suppression read failed', { cause });
        for (const email of chunk) for (const w of waiting.get(email)!) w.reject(error);
      }
    }
  }

  private async batchGet(emails: string[]): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    const pk = SUPPRESSION_TABLE.partitionKey;
    let keys: Record<string, unknown>[] = emails.map((email) => ({ [pk]: email }));
    for (let round = 0; keys.length > 0; round++) {
      // DynamoDB hands back what it could not read in one go; after a few rounds the rest is read one by one.
      if (round >= 3) {
        for (const key of keys) {
          const item = await readSuppressionItem(this.client, this.tableName, String(key[pk]));
          if (item) found.set(String(key[pk]), item);
        }
        break;
      }
      const result = await this.client.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of result.Responses?.[this.tableName] ?? [])
        found.set(String(item[pk]), upgradeSuppressionRecord(item));
      keys = (result.UnprocessedKeys?.[this.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
    return found;
  }
}
