/**
 * The inbox table: exactly-once admission by conditional put on `provider#eventId`.
 *
 * dynalite (our local DynamoDB) ignores ReturnValuesOnConditionCheckFailure and never deletes expired
 * TTL rows, and real DynamoDB may take 48 h to delete them, so: every condition treats an expired row
 * as absent, and a failed condition is followed by a consistent read rather than relying on the
 * returned item.
 */
import { gzipSync, gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INBOX_TABLE, SWEEPER } from '../../lib/definitions.js';
import type { NormalizedEvent } from '../core/event.js';
import { PayloadTooLargeError, TransientError } from '../core/errors.js';
import type { AdmitOutcome, DueRow, InboxStatus, InboxStore } from '../core/pipeline/ports.js';
import { isConditionalCheckFailure } from './aws-clients.js';

/** DynamoDB bills a write unit per KB: raw payloads over this are stored gzip-compressed in `rawGz`. */
export const RAW_INLINE_MAX_BYTES = 1024;

const { partitionKey: PK, ttlAttribute: TTL, pendingIndex } = INBOX_TABLE;

export interface InboxRow {
  pk: string;
  provider: string;
  eventId: string;
  event: Omit<NormalizedEvent, 'raw'>;
  raw?: string;
  rawGz?: Uint8Array;
  receivedAt: number;
  status: InboxStatus;
  appliedAt?: number;
  expiresAt: number;
  /** The sweeper's index keys: present only while the row is not applied (and the sweeper has not given up). */
  pendingShard?: string;
  resendAt?: number;
  /** How many times the sweeper re-sent the row. */
  resends?: number;
  /** Set when the sweeper stopped re-sending a row that was never applied. */
  abandonedAt?: number;
}

export interface DynamoInboxOptions {
  /** Row lifetime (DynamoDB TTL), seconds. */
  ttlSeconds: number;
  /** A new row becomes due for the sweeper this long after it is stored. */
  resendAfterMs?: number;
  now?: () => number;
}

export function inboxKey(provider: string, eventId: string): string {
  return `${provider}#${eventId}`;
}

/** Transparently returns the stored raw payload, whichever attribute holds it. */
export function rawPayload(row: Pick<InboxRow, 'raw' | 'rawGz'>): string | undefined {
  if (row.raw !== undefined) return row.raw;
  if (row.rawGz !== undefined) return gunzipSync(row.rawGz).toString('utf8');
  return undefined;
}

/** A row as an operator reads it: the raw payload inline and decompressed, not the stored bytes. */
export function readableRow(row: InboxRow): Omit<InboxRow, 'rawGz'> {
  const { rawGz: _stored, ...rest } = row;
  return { ...rest, raw: rawPayload(row) };
}

export class DynamoInbox implements InboxStore {
  private readonly ttlSeconds: number;
  private readonly resendAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: DynamoInboxOptions,
  ) {
    this.ttlSeconds = options.ttlSeconds;
    this.resendAfterMs = options.resendAfterMs ?? SWEEPER.resendAfterSeconds * 1000;
    this.now = options.now ?? Date.now;
  }

  async admit(event: NormalizedEvent, receivedAtMs: number): Promise<AdmitOutcome> {
    const pk = inboxKey(event.provider, event.eventId);
    const { raw, ...normalized } = event;
    const item: InboxRow = {
      pk,
      provider: event.provider,
      eventId: event.eventId,
      event: normalized,
      ...storedRaw(raw),
      receivedAt: receivedAtMs,
      status: 'pending',
      expiresAt: Math.floor(receivedAtMs / 1000) + this.ttlSeconds,
      pendingShard: shardOf(pk),
      resendAt: receivedAtMs + this.resendAfterMs,
    };
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
      return { admitted: true, pk };
    } catch (error) {
      // Retrying cannot shrink an item: answer 413 so the sender stops, rather than 503 forever.
      if (isItemTooLarge(error)) throw new PayloadTooLargeError('event is too large to store, even compressed');
      if (!isConditionalCheckFailure(error)) throw new TransientError('inbox put failed', { cause: error });
    }
    const existing = await this.get(pk);
    // Gone between the failed condition and the read (expired and deleted): treat as still pending,
    // so the caller re-sends rather than dropping it. Re-sending is always safe.
    return { admitted: false, pk, status: existing?.status === 'applied' ? 'applied' : 'pending' };
  }

  /** pending → applied and out of the sweeper's index. Never moves a row backwards. */
  async markApplied(pk: string, appliedAtMs: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: pk },
          UpdateExpression: 'SET #status = :applied, #appliedAt = :at REMOVE #shard, #resendAt',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: {
            '#pk': PK,
            '#status': 'status',
            '#appliedAt': 'appliedAt',
            '#shard': pendingIndex.partitionKey,
            '#resendAt': pendingIndex.sortKey,
          },
          ExpressionAttributeValues: { ':applied': 'applied', ':at': appliedAtMs },
        }),
      );
    } catch (error) {
      // Expired and gone: nothing to mark.
      if (isConditionalCheckFailure(error)) return;
      throw new TransientError('inbox mark applied failed', { cause: error });
    }
  }

  async scheduleResend(pk: string, resends: number, nextAtMs: number | null): Promise<void> {
    const names = { '#pk': PK, '#status': 'status', '#resends': 'resends', '#resendAt': pendingIndex.sortKey };
    const update =
      nextAtMs === null
        ? {
            UpdateExpression: 'SET #resends = :resends, #abandonedAt = :now REMOVE #shard, #resendAt',
            ExpressionAttributeNames: { ...names, '#abandonedAt': 'abandonedAt', '#shard': pendingIndex.partitionKey },
            ExpressionAttributeValues: { ':resends': resends, ':now': this.now(), ':applied': 'applied' },
          }
        : {
            UpdateExpression: 'SET #resends = :resends, #resendAt = :next',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':resends': resends, ':next': nextAtMs, ':applied': 'applied' },
          };
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: pk },
          // Applied meanwhile (or expired and gone): it must not come back into the index.
          ConditionExpression: 'attribute_exists(#pk) AND #status <> :applied',
          ...update,
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) return;
      throw new TransientError('inbox reschedule failed', { cause: error });
    }
  }

  async listDue(nowMs: number, limit: number): Promise<DueRow[]> {
    const out: DueRow[] = [];
    for (let shard = 0; shard < pendingIndex.shards && out.length < limit; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await this.client
          .send(
            new QueryCommand({
              TableName: this.tableName,
              IndexName: pendingIndex.name,
              KeyConditionExpression: '#shard = :shard AND #resendAt <= :now',
              ExpressionAttributeNames: { '#shard': pendingIndex.partitionKey, '#resendAt': pendingIndex.sortKey },
              ExpressionAttributeValues: { ':shard': shardName(shard), ':now': nowMs },
              Limit: limit - out.length,
              ExclusiveStartKey: startKey,
            }),
          )
          .catch((cause: unknown) => {
            throw new TransientError('pending index query failed', { cause });
          });
        for (const key of page.Items ?? []) {
          // The index is keys-only and eventually consistent: re-read the row before trusting it
          // (applied or rescheduled meanwhile, possibly by another sweeper run).
          const row = await this.get(String(key[PK]));
          if (row && row.status !== 'applied' && row.pendingShard !== undefined && (row.resendAt ?? 0) <= nowMs) {
            out.push({ pk: row.pk, event: row.event, resends: row.resends ?? 0 });
          }
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey && out.length < limit);
    }
    return out;
  }

  async get(pk: string): Promise<InboxRow | undefined> {
    try {
      const result = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { [PK]: pk }, ConsistentRead: true }),
      );
      return result.Item as InboxRow | undefined;
    } catch (cause) {
      throw new TransientError('inbox read failed', { cause });
    }
  }
}

/** DynamoDB (and dynalite) refuse items over 400 KB with a ValidationException naming the size. */
function isItemTooLarge(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException' && /item size/i.test(error.message);
}

function storedRaw(raw: string): Pick<InboxRow, 'raw' | 'rawGz'> {
  return Buffer.byteLength(raw, 'utf8') > RAW_INLINE_MAX_BYTES ? { rawGz: gzipSync(raw) } : { raw };
}

function shardName(shard: number): string {
  return `pending#${shard}`;
}

function shardOf(pk: string): string {
  return shardName(createHash('sha256').update(pk).digest().readUInt32BE(0) % pendingIndex.shards);
}
