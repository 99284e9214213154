/**
 * The inbox table's one versioned reader. Every event row carries its version in `v` (one byte of
 * attribute name: rows sit just under DynamoDB's 1 KB write unit, so the existing attribute is the
 * version rather than a second one). A version names the dictionary its body was packed with
 * (inbox-codec.ts) and the shape of the events inside; a new version that changes only the events'
 * shape reuses the previous dictionary.
 *
 * `readInboxRow` unpacks the body and runs every step from the row's version up to today's, so the CLI,
 * the local restart recovery and the cost measurement only ever see today's row. Version 1 is the only
 * shape ever written (rows are written once, never updated): the list of steps is empty, and a step is
 * added at its end the day a version 2 is.
 */
import { type SchemaStep, schemaChain } from '../core/schema-steps.js';
import { decodePayload, type StoredEvent } from './inbox-codec.js';
import { INBOX_TABLE } from './tables.js';

const { partitionKey: PK, ttlAttribute: TTL } = INBOX_TABLE;

/** The attribute that holds a row's version. */
export const INBOX_VERSION_ATTRIBUTE = 'v';

/** A row decoded for people and replay: the stored attributes, the body unpacked. */
export interface InboxRow {
  pk: string;
  status: string;
  expiresAt: number;
  events: StoredEvent[];
  raw: string | undefined;
  /** Bytes the stored item takes, by DynamoDB's size rules. */
  itemBytes?: number;
}

/** What a step reads and returns: a row with its body unpacked. */
export type UnpackedRow = InboxRow;

/** Oldest first; each reads the version in `from` and returns the next (none yet: see above). */
export const INBOX_ROW_STEPS: readonly SchemaStep<UnpackedRow>[] = [];

const CHAIN = schemaChain('inbox', INBOX_ROW_STEPS);

/** The version every row is written with. */
export const CURRENT_INBOX_VERSION = CHAIN.current;

/**
 * Any stored event row in today's shape; undefined for the table's other items (Mailgun token claims
 * and control-ledger rows have no body). A row from newer code, whose dictionary this code does not
 * have, throws: its body cannot be read.
 */
export function readInboxRow(item: Record<string, unknown>): InboxRow | undefined {
  if (!(item['body'] instanceof Uint8Array)) return undefined;
  const version = Number(item[INBOX_VERSION_ATTRIBUTE]);
  const { events, raw } = decodePayload(item['body'], version);
  const row: UnpackedRow = {
    pk: String(item[PK]),
    status: String(item['status']),
    expiresAt: Number(item[TTL]),
    events,
    raw,
  };
  return CHAIN.upgrade(row, version);
}
