/**
 * The sync side of the suppression table (the same adapter family as dynamodb-suppressions.ts, which
 * owns the attributes, see suppression-sync-fields.ts): the worker's read and version-guarded write of
 * the `sync` map and outbox marker, and the sparse `sync-due` index for the sweeper and `sync status`.
 * The worker never rewrites the record itself: an UpdateItem sets only `sync`, the marker and the
 * version, and bumps the version so a concurrent record writer re-reads and carries the new map.
 */
import { type DynamoDBDocumentClient, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { SuppressionRecord } from '../core/suppression/record.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import type { BackfillCandidate, BackfillMark } from '../core/sync/backfill.js';
import { DEAD_DUE_MS, type MarkerUpdate, type SyncLedger, type SyncView } from '../core/sync/ledger.js';
import { allPendingKeys, LEGACY_PENDING_KEY, pendingKey } from '../core/sync/shard.js';
import type { SyncMap } from '../core/sync/state.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { BatchedSuppressionReader } from './dynamodb-suppression-batch-read.js';
import { readSuppressionItem } from './dynamodb-suppression-item.js';
import { IndexNotReadyError, isIndexNotReady, isMissingIndex } from './dynamodb-sync-index-errors.js';
import { markForBackfill } from './dynamodb-sync-marks.js';
import { SYNC_ATTRIBUTE as A, SYNC_INDEX, takeSyncFields } from './suppression-sync-fields.js';
import { SUPPRESSION_TABLE } from './tables.js';

/** One item of the pending index: enough to know which providers lag, without reading the record. */
export interface PendingItem {
  email: string;
  change: number;
  due: number;
  sync: SyncMap;
}

export class DynamoSuppressionSync implements SyncLedger {
  /** A local table created before sync was turned on, where dynalite cannot add the index: scan instead. */
  private indexMissing = false;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
    private readonly options: {
      /** Local only: read the table when the index is absent. On AWS the sweeper's role may only Query. */
      scanWhenIndexMissing?: boolean;
      /** The worker: reads asked for in the same turn of the event loop go out as one BatchGetItem. */
      batchReads?: boolean;
    } = {},
  ) {
    if (options.batchReads) this.batchReader = new BatchedSuppressionReader(client, tableName);
  }

  private readonly batchReader?: BatchedSuppressionReader;

  async read(email: string): Promise<SyncView | undefined> {
    // Through the table's versioned reader, like every read of it: the planner sees today's shape.
    const item = this.batchReader
      ? await this.batchReader.read(email)
      : await readSuppressionItem(this.client, this.tableName, email);
    if (!item) return undefined;
    const { fields, rest } = takeSyncFields(item);
    const {
      version,
      updatedAt: _updatedAt,
      schemaVersion: _schemaVersion,
      ...record
    } = rest as Record<string, unknown>;
    return {
      record: record as unknown as SuppressionRecord,
      sync: fields.sync ?? {},
      change: fields.syncChange ?? 0,
      version: typeof version === 'number' ? version : 0,
      ...(fields.syncDue !== undefined ? { due: fields.syncDue } : {}),
    };
  }

  async commit(email: string, version: number, sync: SyncMap, marker: MarkerUpdate): Promise<boolean> {
    const names: Record<string, string> = { '#sync': A.map, '#version': 'version', '#updatedAt': 'updatedAt' };
    const values: Record<string, unknown> = {
      ':sync': sync,
      ':version': version,
      ':next': version + 1,
      ':now': this.now(),
    };
    let expression = 'SET #sync = :sync, #version = :next, #updatedAt = :now';
    if (marker === 'clear') {
      names['#pending'] = A.pending;
      names['#due'] = A.due;
      expression += ' REMOVE #pending, #due';
    } else if (marker !== 'keep') {
      names['#pending'] = A.pending;
      names['#due'] = A.due;
      values[':pending'] = pendingKey(email);
      values[':due'] = marker.due;
      expression += ', #pending = :pending, #due = :due';
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [SUPPRESSION_TABLE.partitionKey]: email },
          UpdateExpression: expression,
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw new TransientError('sync write failed', { cause: error });
    }
  }

  /**
   * Moves a swept item's marker to `toDue`, only if it is still at `fromDue` (a newer write or the
   * worker's clear wins). Not version-bumping: it is the lease on the message just sent, not a change.
   * It also moves a marker of the old shape (`pending`) to the address's shard.
   */
  async postpone(email: string, fromDue: number, toDue: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [SUPPRESSION_TABLE.partitionKey]: email },
          UpdateExpression: 'SET #due = :to, #pending = :key',
          ConditionExpression: '#due = :from',
          ExpressionAttributeNames: { '#due': A.due, '#pending': A.pending },
          ExpressionAttributeValues: { ':from': fromDue, ':to': toDue, ':key': pendingKey(email) },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw new TransientError('sync lease write failed', { cause: error });
    }
  }

  /**
   * Pending items due at or before `dueBefore`, page by page (`onPage` awaited before the next page;
   * 'stop' ends the read): every shard, oldest first within each, starting at shard `startShard` so no
   * shard is always read last, then the old single partition. No new page is read once `deadline`
   * (epoch ms) has passed. `complete` says whether everything was read.
   *
   * An index DynamoDB is still building (turning sync on for a table with records) answers
   * "Cannot read from backfilling global secondary index": that is IndexNotReadyError, and the next
   * sweep asks again. A missing index is the same on AWS; only the local runtime, whose dynalite cannot
   * add an index to an existing table, reads the table instead (`scanWhenIndexMissing`).
   */
  async pending(
    dueBefore: number,
    onPage: (items: PendingItem[]) => Promise<undefined | 'stop'> | undefined | 'stop',
    options: { deadline?: number; startShard?: number } = {},
  ): Promise<{ complete: boolean }> {
    const keys = rotate(allPendingKeys(), options.startShard ?? 0);
    for (const key of this.indexMissing ? [undefined] : keys) {
      let startKey: Record<string, unknown> | undefined;
      do {
        if (options.deadline !== undefined && this.now() >= options.deadline) return { complete: false };
        const page = await this.readPage(key, dueBefore, startKey);
        if (page === 'fell-back') return this.pending(dueBefore, onPage, options);
        const items = (page.Items ?? []).map(pendingItem);
        if (items.length > 0 && (await onPage(items)) === 'stop') return { complete: false };
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
    return { complete: true };
  }

  /** One page of the table itself, for the backfill: every record, sync fields and all, through the versioned reader. */
  async scanRecords(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ items: BackfillCandidate[]; cursor?: string }> {
    let page: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };
    try {
      page = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          Limit: limit,
          ConsistentRead: true,
          ...(cursor ? { ExclusiveStartKey: JSON.parse(cursor) as Record<string, unknown> } : {}),
        }),
      );
    } catch (cause) {
      throw new TransientError('sync backfill scan failed', { cause });
    }
    const items = (page.Items ?? []).map((stored) => {
      const { fields, rest } = takeSyncFields(upgradeSuppressionRecord(stored));
      return {
        record: rest as unknown as SuppressionRecord,
        sync: fields.sync ?? {},
        change: fields.syncChange ?? 0,
        // A parked marker (a change dead-lettered elsewhere, a refused removal) is never due: the sweeper
        // would never send it to the provider being backfilled, so it counts as none.
        pending: fields.syncPending !== undefined && fields.syncDue !== DEAD_DUE_MS,
      };
    });
    return { items, ...(page.LastEvaluatedKey ? { cursor: JSON.stringify(page.LastEvaluatedKey) } : {}) };
  }

  /** The backfill's mark (dynamodb-sync-marks.ts): false when the item has a marker already, or is gone. */
  markPending(email: string, dueMs: number, why: BackfillMark = 'change'): Promise<boolean> {
    return markForBackfill(this.client, this.tableName, email, dueMs, why);
  }

  private async readPage(
    key: string | undefined,
    dueBefore: number,
    startKey: Record<string, unknown> | undefined,
  ): Promise<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> } | 'fell-back'> {
    try {
      if (key === undefined) return await this.scanPage(dueBefore, startKey);
      return await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: SYNC_INDEX.name,
          KeyConditionExpression: '#pending = :pending AND #due <= :due',
          ExpressionAttributeNames: { '#pending': A.pending, '#due': A.due },
          ExpressionAttributeValues: { ':pending': key, ':due': dueBefore },
          ExclusiveStartKey: startKey,
        }),
      );
    } catch (cause) {
      if (key !== undefined && isIndexNotReady(cause)) {
        if (this.options.scanWhenIndexMissing && isMissingIndex(cause)) {
          this.indexMissing = true;
          return 'fell-back';
        }
        throw new IndexNotReadyError((cause as Error).message, { cause });
      }
      throw new TransientError('sync index query failed', { cause });
    }
  }

  private scanPage(dueBefore: number, startKey: Record<string, unknown> | undefined) {
    return this.client.send(
      new ScanCommand({
        TableName: this.tableName,
        FilterExpression: 'begins_with(#pending, :pending) AND #due <= :due',
        ExpressionAttributeNames: { '#pending': A.pending, '#due': A.due },
        ExpressionAttributeValues: { ':pending': LEGACY_PENDING_KEY, ':due': dueBefore },
        ExclusiveStartKey: startKey,
      }),
    );
  }
}

function pendingItem(item: Record<string, unknown>): PendingItem {
  const { fields } = takeSyncFields(item);
  return {
    email: String(item[SUPPRESSION_TABLE.partitionKey]),
    change: fields.syncChange ?? 0,
    due: fields.syncDue ?? 0,
    sync: fields.sync ?? {},
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  // The last key (the old single partition) stays last: it empties as leases move its markers.
  const shards = items.slice(0, -1);
  const n = ((by % shards.length) + shards.length) % shards.length;
  return [...shards.slice(n), ...shards.slice(0, n), ...items.slice(-1)];
}
