/**
 * One item of the suppression table as the store and the sync worker see it: read consistently, or
 * handed back by DynamoDB with a refused conditional put, always through the table's versioned reader
 * (core/suppression/schema.ts), and split into the record, its version and the sync fields.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TransientError } from '../core/errors.js';
import type { SuppressionRecord } from '../core/suppression/index.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import { type StoredSyncFields, takeSyncFields } from './suppression-sync-fields.js';
import { SUPPRESSION_TABLE } from './tables.js';

/** What the adapter adds to every item; not part of the pure record. */
export interface StoredFields {
  /** Optimistic-lock counter: the put's condition. */
  version: number;
  updatedAt: number;
  /** The item's shape version (core/suppression/schema.ts). */
  schemaVersion: number;
}

/** A read of the item: nothing (version 0), or the record, its version and its sync fields. */
export interface StoredRead {
  record?: SuppressionRecord;
  version: number;
  item?: SuppressionRecord & StoredFields;
  sync?: StoredSyncFields;
}

/**
 * The item a failed conditional put returned (raw attribute values: the document client does not
 * convert an error's), read as a consistent read would have been. Nothing when none came back: a
 * version-guarded put whose item was deleted meanwhile, or an endpoint that ignores the option (dynalite).
 */
export function storedWith(error: unknown): { stored?: StoredRead } {
  const item = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
  if (!item || Object.keys(item).length === 0) return {};
  return { stored: parseStored(upToDate(unmarshall(item)) as unknown as Record<string, unknown>) };
}

/** A stored item (already through the versioned reader) as the record, its version and its sync fields. */
export function parseStored(stored: Record<string, unknown> | undefined): StoredRead {
  if (!stored) return { version: 0 };
  // The sync outbox fields are the adapter's, set aside.
  const item = stored as unknown as SuppressionRecord & StoredFields;
  const { fields, rest } = takeSyncFields(item as unknown as Record<string, unknown>);
  const {
    version,
    updatedAt: _updatedAt,
    schemaVersion: _schemaVersion,
    ...record
  } = rest as unknown as SuppressionRecord & StoredFields & { schemaVersion?: number };
  return { record: record as SuppressionRecord, version: version ?? 0, item, sync: fields };
}

/**
 * One item by a consistent read, through the table's versioned reader, so an item of any older shape
 * arrives in today's. Every guarded read of the table (this store's, the sync worker's) goes here.
 */
export async function readSuppressionItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  email: string,
): Promise<Record<string, unknown> | undefined> {
  let stored: Record<string, unknown> | undefined;
  try {
    const result = await client.send(
      new GetCommand({ TableName: tableName, Key: { [SUPPRESSION_TABLE.partitionKey]: email }, ConsistentRead: true }),
    );
    stored = result.Item;
  } catch (cause) {
    throw new TransientError('suppression read failed', { cause });
  }
  return stored ? (upToDate(stored) as unknown as Record<string, unknown>) : undefined;
}

/** The table's one versioned reader (core/suppression/schema.ts), typed as the store's items. */
export function upToDate(item: Record<string, unknown>): SuppressionRecord & Partial<StoredFields> {
  return upgradeSuppressionRecord(item) as unknown as SuppressionRecord & Partial<StoredFields>;
}
