/**
 * The inbox table: exactly-once admission by conditional put on `provider#eventId`.
 *
 * A row is only the dedup key `pk`, the TTL `expiresAt` and one compressed `body` (the normalized events
 * and the exact raw payload, packed by inbox-packing.ts) with its version `v` (every read goes through
 * inbox-schema.ts, which brings an older version up to today's). At most 1,000 bytes by DynamoDB's size
 * rules for every one of AWS's published SES examples, content key included
 * (test/unit/adapters/inbox-row-size.test.ts), so a put costs one write unit. Attribute names are short
 * on purpose, and version 1's `status` (always `queued`) is gone: DynamoDB bills every byte. The edge has already sent the
 * events to SQS when it stores the row, so nothing ever updates a row: no pending index, no "applied".
 *
 * dynalite (our local DynamoDB) never deletes expired TTL rows and real DynamoDB may take 48 h to, so
 * the condition treats an expired row as absent.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { PayloadTooLargeError, TransientError } from '../core/errors.js';
import type { NormalizedEvent } from '../core/event.js';
import type { InboxStore, PreparedRow } from '../core/pipeline/ports.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { itemSize } from './dynamodb-item-size.js';
import { scanPages } from './dynamodb-scan.js';
import { packBody } from './inbox-packing.js';
import { CURRENT_INBOX_VERSION, INBOX_VERSION_ATTRIBUTE, type InboxRow, readInboxRow } from './inbox-schema.js';
import { INBOX_TABLE } from './tables.js';

export type { InboxRow };

const { partitionKey: PK, ttlAttribute: TTL } = INBOX_TABLE;

/** DynamoDB's item size limit (400 KB). */
export const MAX_ITEM_BYTES = 400 * 1024;

/** An inbox row as written (version 1 rows also carry `status: 'queued'`). */
export interface StoredRow {
  pk: string;
  expiresAt: number;
  body: Uint8Array;
  v: number;
}

export interface DynamoInboxOptions {
  /** Row lifetime (DynamoDB TTL), seconds. */
  ttlSeconds: number;
}

interface DynamoPreparedRow extends PreparedRow {
  item: StoredRow;
  receivedAtMs: number;
}

export function inboxKey(provider: string, eventId: string): string {
  return `${provider}#${eventId}`;
}

/** The stored item as DynamoDB sees it, for its size. */
export function storedRowAttributes(row: StoredRow): Record<string, AttributeValue> {
  return {
    [PK]: { S: row.pk },
    [TTL]: { N: String(row.expiresAt) },
    body: { B: row.body },
    [INBOX_VERSION_ATTRIBUTE]: { N: String(row.v) },
  };
}

export class DynamoInbox implements InboxStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: DynamoInboxOptions,
  ) {
    this.ttlSeconds = options.ttlSeconds;
  }

  prepare(events: readonly NormalizedEvent[], receivedAtMs: number): DynamoPreparedRow {
    const first = events[0];
    if (!first) throw new TypeError('an inbox row needs at least one event');
    const stored = events.map(({ raw: _raw, ...rest }) => rest);
    const pk = inboxKey(first.provider, first.eventId);
    const item: StoredRow = {
      pk,
      expiresAt: Math.floor(receivedAtMs / 1000) + this.ttlSeconds,
      body: packBody(stored, first.raw, pk),
      v: CURRENT_INBOX_VERSION,
    };
    // Retrying cannot shrink an item: refused here, before anything is sent, and answered 413.
    if (itemSize(storedRowAttributes(item)) > MAX_ITEM_BYTES) {
      throw new PayloadTooLargeError('event is too large to store, even compressed');
    }
    return { pk: item.pk, events, item, receivedAtMs };
  }

  async store(row: PreparedRow): Promise<boolean> {
    const { item, receivedAtMs } = row as DynamoPreparedRow;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :now',
          ExpressionAttributeNames: { '#pk': PK, '#ttl': TTL },
          ExpressionAttributeValues: { ':now': Math.floor(receivedAtMs / 1000) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw new TransientError('inbox put failed', { cause: error });
    }
  }

  async get(pk: string): Promise<InboxRow | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      const result = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { [PK]: pk }, ConsistentRead: true }),
      );
      item = result.Item;
    } catch (cause) {
      throw new TransientError('inbox read failed', { cause });
    }
    return item ? readInboxRow(item) : undefined;
  }

  /**
   * Every stored event row not yet expired, decoded, a page at a time (a Scan: for the local runtime's
   * restart recovery and operators, never a request path). Nonce and control rows are skipped.
   */
  async *listStored(nowMs: number): AsyncGenerator<InboxRow[]> {
    const pages = scanPages(
      this.client,
      {
        TableName: this.tableName,
        FilterExpression: 'attribute_exists(#body) AND #ttl >= :now',
        ExpressionAttributeNames: { '#body': 'body', '#ttl': TTL },
        ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
      },
      'inbox',
    );
    for await (const items of pages) yield items.flatMap((item) => readInboxRow(item) ?? []);
  }

  /**
   * The newest `limit` event rows, newest first, optionally of one provider and received at or after
   * `sinceMs`. A row keeps no receipt time of its own, only its expiry, which is the receipt time plus
   * this inbox's lifetime: the order is by expiry, and `receivedAt` is derived from it (exact while the
   * lifetime is the one the rows were written with). A Scan with the sort done here, for operators: it
   * reads the whole table (its cost grows with the table; an index on receipt time would be the step
   * beyond a local stack's size), but holds at most `limit` undecoded rows plus one page in memory.
   */
  async listNewest(options: {
    limit: number;
    nowMs: number;
    provider?: string;
    sinceMs?: number;
  }): Promise<Array<InboxRow & { receivedAt: number }>> {
    const { limit, nowMs, provider, sinceMs } = options;
    const floor = Math.max(
      Math.floor(nowMs / 1000),
      sinceMs === undefined ? 0 : Math.ceil(sinceMs / 1000) + this.ttlSeconds,
    );
    const newest: Array<Record<string, unknown>> = [];
    const pages = scanPages(
      this.client,
      {
        TableName: this.tableName,
        FilterExpression: `attribute_exists(#body) AND #ttl >= :floor${provider ? ' AND begins_with(#pk, :prefix)' : ''}`,
        ExpressionAttributeNames: { '#body': 'body', '#ttl': TTL, ...(provider ? { '#pk': PK } : {}) },
        ExpressionAttributeValues: { ':floor': floor, ...(provider ? { ':prefix': `${provider}#` } : {}) },
      },
      'inbox',
    );
    for await (const items of pages) {
      for (const item of items) {
        newest.push(item);
        if (newest.length > limit * 2) newest.splice(0, newest.length, ...byExpiryDescending(newest).slice(0, limit));
      }
    }
    return byExpiryDescending(newest)
      .slice(0, limit)
      .flatMap((item) => {
        const row = readInboxRow(item);
        return row ? [{ ...row, receivedAt: (row.expiresAt - this.ttlSeconds) * 1000 }] : [];
      });
  }

  /**
   * When each provider's newest stored row was received (the console's health page): one Scan reading
   * only the key and the expiry, stopped at `deadlineMs` (`complete` false then: the times are a lower
   * bound). Like `listNewest`, exact while the lifetime is the one the rows were written with.
   */
  async newestPerProvider(options: { nowMs: number; deadlineMs: number }): Promise<{
    receivedAt: Record<string, number>;
    scanned: number;
    complete: boolean;
  }> {
    const newest: Record<string, number> = {};
    let scanned = 0;
    const pages = scanPages(
      this.client,
      {
        TableName: this.tableName,
        ProjectionExpression: '#pk, #ttl',
        FilterExpression: 'attribute_exists(#body) AND #ttl >= :now',
        ExpressionAttributeNames: { '#pk': PK, '#ttl': TTL, '#body': 'body' },
        ExpressionAttributeValues: { ':now': Math.floor(options.nowMs / 1000) },
      },
      'inbox',
    );
    for await (const items of pages) {
      for (const item of items) {
        scanned++;
        const provider = String(item[PK]).split('#')[0]!;
        const at = (Number(item[TTL]) - this.ttlSeconds) * 1000;
        if (!(newest[provider]! >= at)) newest[provider] = at;
      }
      if (Date.now() >= options.deadlineMs) return { receivedAt: newest, scanned, complete: false };
    }
    return { receivedAt: newest, scanned, complete: true };
  }
}

function byExpiryDescending(items: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return [...items].sort((a, b) => Number(b[TTL]) - Number(a[TTL]) || String(b[PK]).localeCompare(String(a[PK])));
}
