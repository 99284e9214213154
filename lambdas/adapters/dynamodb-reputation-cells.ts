/**
 * The reputation table's counting side (layout: reputation-keys.ts): the stream consumer's cells, and
 * the sender registry it refreshes.
 *
 * Per cell and batch, one conditional UpdateItem that ADDs the cell's records and moves its `hw`:
 *  1. first, optimistically, on the condition that the cell counted nothing of this batch yet
 *     (`hw` absent or below the batch's first sequence number): the steady state, one write;
 *  2. when that fails (a retried, bisected or overlapping batch), a consistent GetItem of `hw`, and a
 *     write of only the records above it, on the condition that `hw` is still what was read.
 * A cell has one writer (its stream shard's consumer, one batch at a time), so step 2 fails again only
 * if that is broken; it is tried a bounded number of times, then the batch fails and Lambda retries it.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import { settleWithLimit } from '../core/pipeline/concurrency.js';
import { HOUR_MS, type OutcomeCounts } from '../core/reputation/counts.js';
import { type CellBatch, countAbove, type ReputationCells } from '../core/reputation/stream-count.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { COUNT_FIELDS, cellSortKey, counterKey, HIGH_WATER, registryKey, registrySortKey } from './reputation-keys.js';
import { REPUTATION_TABLE } from './tables.js';

const T = REPUTATION_TABLE;
const DAY_S = 86_400;
/** Registrations remembered per process before the memory is cleared (then re-sent once, harmlessly). */
const REMEMBERED = 10_000;
/** Cells written at once: a batch of 1,000 records holds a few senders and hours. */
const CELL_CONCURRENCY = 8;
/** Reads and writes of one cell before the batch is failed (a cell has one writer: 2 suffice). */
const ATTEMPTS = 3;

export class DynamoReputationCells implements ReputationCells {
  private readonly registered = new Set<string>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async count(shard: string, cells: readonly CellBatch[]): Promise<{ counted: number; skipped: number }> {
    const settled = await settleWithLimit(cells, CELL_CONCURRENCY, (cell) => this.countCell(shard, cell));
    let counted = 0;
    let skipped = 0;
    for (const result of settled) {
      if (result.status === 'rejected') throw result.reason;
      counted += result.value.counted;
      skipped += result.value.skipped;
    }
    await settleWithLimit(cells, CELL_CONCURRENCY, (cell) => this.register(cell)).then((all) => {
      for (const r of all) if (r.status === 'rejected') throw r.reason;
    });
    return { counted, skipped };
  }

  private async countCell(shard: string, cell: CellBatch): Promise<{ counted: number; skipped: number }> {
    const key = {
      [T.partitionKey]: counterKey(cell.provider, cell.sender),
      [T.sortKey]: cellSortKey(cell.hourMs, shard),
    };
    const all = countAbove(cell, undefined)!;
    if (await this.add(key, cell.hourMs, all.counts, all.last, { below: all.first }))
      return { counted: cell.entries.length, skipped: 0 };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const hw = await this.highWater(key);
      const fresh = countAbove(cell, hw);
      if (!fresh) return { counted: 0, skipped: cell.entries.length };
      if (await this.add(key, cell.hourMs, fresh.counts, fresh.last, { equals: hw }))
        return { counted: fresh.records, skipped: cell.entries.length - fresh.records };
    }
    throw new TransientError(`reputation cell ${key[T.sortKey]} kept changing under its one writer`);
  }

  /** One ADD of `counts`, `hw` set to `last`; false when the condition on `hw` did not hold. */
  private async add(
    key: Record<string, string>,
    hourMs: number,
    counts: OutcomeCounts,
    last: string,
    when: { below: string } | { equals: string | undefined },
  ): Promise<boolean> {
    const fields = COUNT_FIELDS.filter((f) => counts[f] > 0);
    const condition =
      'below' in when
        ? 'attribute_not_exists(#hw) OR #hw < :when'
        : when.equals === undefined
          ? 'attribute_not_exists(#hw)'
          : '#hw = :when';
    const whenValue = 'below' in when ? when.below : when.equals;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `${fields.length > 0 ? `ADD ${fields.map((f) => `#${f} :${f}`).join(', ')} ` : ''}SET #hw = :last, #exp = :exp`,
          ConditionExpression: condition,
          ExpressionAttributeNames: {
            ...Object.fromEntries(fields.map((f) => [`#${f}`, f])),
            '#hw': HIGH_WATER,
            '#exp': T.ttlAttribute,
          },
          ExpressionAttributeValues: {
            ...Object.fromEntries(fields.map((f) => [`:${f}`, counts[f]])),
            ':last': last,
            ':exp': expiresAt(hourMs),
            ...(whenValue === undefined ? {} : { ':when': whenValue }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw new TransientError('reputation counter write failed', { cause: error });
    }
  }

  private async highWater(key: Record<string, string>): Promise<string | undefined> {
    try {
      const { Item } = await this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: key,
          ProjectionExpression: '#hw',
          ExpressionAttributeNames: { '#hw': HIGH_WATER },
          ConsistentRead: true,
        }),
      );
      const hw = Item?.[HIGH_WATER];
      return typeof hw === 'string' ? hw : undefined;
    } catch (cause) {
      throw new TransientError('reputation counter read failed', { cause });
    }
  }

  /** A sender's registry row, refreshed the first time this process counts it in an hour. */
  private async register(cell: CellBatch): Promise<void> {
    const memo = `${cell.provider}#${cell.sender}#${cell.hourMs}`;
    if (this.registered.has(memo)) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: {
            [T.partitionKey]: registryKey(cell.sender),
            [T.sortKey]: registrySortKey(cell.sender, cell.provider),
          },
          UpdateExpression: 'SET #provider = :provider, #sender = :sender, #seen = :seen, #exp = :exp',
          ExpressionAttributeNames: {
            '#provider': 'provider',
            '#sender': 'sender',
            '#seen': 'lastSeenAt',
            '#exp': T.ttlAttribute,
          },
          ExpressionAttributeValues: {
            ':provider': cell.provider,
            ':sender': cell.sender,
            ':seen': cell.hourMs,
            ':exp': expiresAt(cell.hourMs),
          },
        }),
      );
    } catch (cause) {
      throw new TransientError('reputation registry write failed', { cause });
    }
    if (this.registered.size >= REMEMBERED) this.registered.clear();
    this.registered.add(memo);
  }
}

/** The end of the hour plus the counters' lifetime, epoch seconds. */
function expiresAt(hourMs: number): number {
  return Math.floor((hourMs + HOUR_MS) / 1000) + T.counterTtlDays * DAY_S;
}
