/**
 * The suppression table's sync attributes, owned by the suppression adapter (dynamodb-suppressions.ts
 * writes them with every record, dynamodb-suppression-sync.ts for the worker, the sweeper and `sync
 * status`); nothing else names them.
 *
 * - `sync`: the map of what Ratchet pushed to each provider (core/sync/state.ts), shown by `suppressions get`.
 * - `syncChange`: a counter bumped by every write that changes the record's sync projection.
 * - `syncPending` + `syncDue`: the outbox marker, and the sparse index `sync-due` (hash `syncPending`,
 *   range `syncDue`, epoch ms) the sweeper queries for due items. Present only while some provider
 *   still has to push the latest change, so the index holds the backlog and nothing else.
 *   `syncPending` is `pending#<n>`, one of SYNC_PENDING_SHARDS index partitions chosen by a hash of the
 *   address (core/sync/shard.ts says why sixteen: DynamoDB's 1,000 write units a second per partition).
 */

import type { SuppressionRecord } from '../core/suppression/record.js';
import { syncProjection } from '../core/sync/ledger.js';
import { pendingKey } from '../core/sync/shard.js';
import type { SyncMap } from '../core/sync/state.js';

export const SYNC_ATTRIBUTE = {
  map: 'sync',
  change: 'syncChange',
  pending: 'syncPending',
  due: 'syncDue',
} as const;

export const SYNC_INDEX = {
  name: 'sync-due',
  partitionKey: SYNC_ATTRIBUTE.pending,
  sortKey: SYNC_ATTRIBUTE.due,
} as const;

/**
 * How long the fast-path message has before the sweeper sends its own copy: the marker is written due
 * this far ahead, so a change whose message got through is never swept twice, and one whose message was
 * lost (the process died between the put and the send) is swept within this plus one sweep interval.
 */
export const FAST_PATH_GRACE_MS = 60_000;

export interface StoredSyncFields {
  sync?: SyncMap;
  syncChange?: number;
  syncPending?: string;
  syncDue?: number;
}

/** Splits an item into the adapter's sync fields and the rest. */
export function takeSyncFields<T extends Record<string, unknown>>(
  item: T,
): { fields: StoredSyncFields; rest: Omit<T, keyof StoredSyncFields> } {
  const { sync, syncChange, syncPending, syncDue, ...rest } = item as T & StoredSyncFields;
  const fields: StoredSyncFields = {};
  if (sync !== undefined) fields.sync = sync;
  if (typeof syncChange === 'number') fields.syncChange = syncChange;
  if (typeof syncPending === 'string') fields.syncPending = syncPending;
  if (typeof syncDue === 'number') fields.syncDue = syncDue;
  return { fields, rest: rest as Omit<T, keyof StoredSyncFields> };
}

/**
 * The sync fields to write with `after`: carried over from the stored item, plus a new change and a
 * due marker when the sync projection moved. `bumped` says whether the fast path should be sent.
 */
export function syncFieldsForWrite(
  stored: StoredSyncFields,
  before: SuppressionRecord | undefined,
  after: SuppressionRecord,
  nowMs: number,
): { fields: StoredSyncFields; bumped: boolean } {
  if (syncProjection(before) === syncProjection(after)) return { fields: stored, bumped: false };
  return {
    fields: {
      ...stored,
      syncChange: (stored.syncChange ?? 0) + 1,
      syncPending: pendingKey(after.email),
      syncDue: nowMs + FAST_PATH_GRACE_MS,
    },
    bumped: true,
  };
}
