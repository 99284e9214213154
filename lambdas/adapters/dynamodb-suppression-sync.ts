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
import type { MarkerUpdate, SyncLedger, SyncView } from '../core/sync/ledger.js';
import type { SyncMap } from '../core/sync/state.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { readSuppressionItem } from './dynamodb-suppressions.js';
import { SYNC_ATTRIBUTE as A, SYNC_INDEX, SYNC_PENDING_VALUE, takeSyncFields } from './suppression-sync-fields.js';
import { SUPPRESSION_TABLE } from './tables.js';

/** One item of the pending index: enough to know which providers lag, without reading the record. */
export interface PendingItem {
  email: string;
  change: number;
  due: number;
  sync: SyncMap;
}

export class DynamoSuppressionSync implements SyncLedger {
  /** A table created before sync was turned on, where the index cannot be added (dynalite): scan instead. */
  private indexMissing = false;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async read(email: string): Promise<SyncView | undefined> {
    // Through the table's versioned reader, like every read of it: the planner sees today's shape.
    const item = await readSuppressionItem(this.client, this.tableName, email);
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
      values[':pending'] = SYNC_PENDING_VALUE;
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
   */
  async postpone(email: string, fromDue: number, toDue: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [SUPPRESSION_TABLE.partitionKey]: email },
          UpdateExpression: 'SET #due = :to',
          ConditionExpression: '#due = :from',
          ExpressionAttributeNames: { '#due': A.due },
          ExpressionAttributeValues: { ':from': fromDue, ':to': toDue },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw new TransientError('sync lease write failed', { cause: error });
    }
  }

  /** Pending items due at or before `dueBefore`, oldest first, page by page (`onPage` awaited before the next page). */
  async pending(dueBefore: number, onPage: (items: PendingItem[]) => Promise<void> | void): Promise<void> {
    let startKey: Record<string, unknown> | undefined;
    do {
      let page: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };
      try {
        page = this.indexMissing
          ? await this.scanPage(dueBefore, startKey)
          : await this.client.send(
              new QueryCommand({
                TableName: this.tableName,
                IndexName: SYNC_INDEX.name,
                KeyConditionExpression: '#pending = :pending AND #due <= :due',
                ExpressionAttributeNames: { '#pending': A.pending, '#due': A.due },
                ExpressionAttributeValues: { ':pending': SYNC_PENDING_VALUE, ':due': dueBefore },
                ExclusiveStartKey: startKey,
              }),
            );
      } catch (cause) {
        if (!this.indexMissing && isMissingIndex(cause)) {
          this.indexMissing = true;
          continue;
        }
        throw new TransientError('sync index query failed', { cause });
      }
      const items = (page.Items ?? []).map((item) => {
        const { fields } = takeSyncFields(item);
        return {
          email: String(item[SUPPRESSION_TABLE.partitionKey]),
          change: fields.syncChange ?? 0,
          due: fields.syncDue ?? 0,
          sync: fields.sync ?? {},
        };
      });
      if (items.length > 0) await onPage(items);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  private scanPage(dueBefore: number, startKey: Record<string, unknown> | undefined) {
    return this.client.send(
      new ScanCommand({
        TableName: this.tableName,
        FilterExpression: '#pending = :pending AND #due <= :due',
        ExpressionAttributeNames: { '#pending': A.pending, '#due': A.due },
        ExpressionAttributeValues: { ':pending': SYNC_PENDING_VALUE, ':due': dueBefore },
        ExclusiveStartKey: startKey,
      }),
    );
  }
}

function isMissingIndex(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException' && /index/i.test(error.message);
}
