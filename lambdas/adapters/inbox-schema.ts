/**
 * The inbox table's one versioned reader. Every event row carries its version in `v` (one byte of
 * attribute name: rows sit just under DynamoDB's 1 KB write unit, so the existing attribute is the
 * version rather than a second one). A version names how its body was packed and the shape of the
 * events inside:
 *
 * - 1: `status` (always `queued`) beside the body; the body is every event whole, then the raw payload,
 *   deflated with dictionary 1 (inbox-codec.ts).
 * - 2: no `status`; the body packed by inbox-packing.ts (events without what the key says, an SNS
 *   signature as bytes, a pretty-printed message's whitespace apart) with dictionary 2.
 *
 * `readInboxRow` unpacks the body the way its version was packed, then runs every step from the row's
 * version up to today's, so the CLI, the local restart recovery and the cost measurement only ever see
 * today's row. Rows are written once and never updated: a version-1 row stays as it is until it expires,
 * and is read through the steps (test/fixtures/inbox-schema holds one as written).
 */
import { type SchemaStep, schemaChain } from '../core/schema-steps.js';
import { decodePayload, type StoredEvent } from './inbox-codec.js';
import { unpackBody } from './inbox-packing.js';
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

/** Oldest first; each reads the version in `from` and returns the next. */
export const INBOX_ROW_STEPS: readonly SchemaStep<UnpackedRow>[] = [
  {
    from: 1,
    change:
      'no status attribute (every row is queued); the body packed more tightly (inbox-packing.ts). Unpacked, the row is the same',
    upgrade: (row) => ({ ...row, status: 'queued' }),
  },
];

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
  const pk = String(item[PK]);
  // Version 1 named its dictionary by its version; from 2 on the packing says which it uses.
  const { events, raw } =
    version >= 2 && !CHAIN.isNewer(version) ? unpackBody(item['body'], pk) : decodePayload(item['body'], version);
  const row: UnpackedRow = {
    pk,
    status: version === 1 ? String(item['status']) : 'queued',
    expiresAt: Number(item[TTL]),
    events,
    raw,
  };
  return CHAIN.upgrade(row, version);
}
