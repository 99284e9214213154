/**
 * The suppression table's one versioned reader. Every item carries its shape's version in the
 * attribute `schemaVersion` (the item's `version` is the writer's optimistic-lock counter, a different thing);
 * items written before the attribute existed have none and read as version 1. Every read (the store's
 * get and scan, the client package, the in-repo `isSuppressed`) passes the item through
 * `upgradeSuppressionRecord`, and every write stores `CURRENT_SUPPRESSION_SCHEMA`, so nothing past the
 * reader carries a shim for an older shape.
 *
 * Steps also run on the projected items the send answer reads (ANSWER_ATTRIBUTES plus one topic, see
 * answer.ts), so a step must leave absent what it cannot derive from the attributes it is given.
 *
 * To add a version: append one step whose `from` is the version written today (schema-steps.ts).
 */
import { FIRST_VERSION, type SchemaStep, schemaChain } from '../schema-steps.js';
import { LEGACY_PENDING_KEY, pendingKey } from '../sync/shard.js';

/**
 * The attribute that holds an item's shape version (public: documented with the table). Not `schema`:
 * that is a DynamoDB reserved word, which every expression naming it would have to alias.
 */
export const SUPPRESSION_SCHEMA_ATTRIBUTE = 'schemaVersion';

/** A stored suppression item (or a projection of one), attributes as read. */
export type StoredItem = Record<string, unknown>;

/**
 * Version 1 → 2: topics. Per-topic consent (`topics`) and the answer for mail the recipient needs
 * (`transactionalStatus`) arrived together. A version-1 item has neither: no topic was ever recorded,
 * and `transactionalStatus` is what today's writer would derive from `reasons` (suppressed iff a
 * reason other than `unsubscribe` is in effect). An item that says `suppressed` but lists no reason we
 * can read stays suppressed for everything: failing closed is the only safe reading.
 */
function addTopics(item: StoredItem): StoredItem {
  const upgraded: StoredItem = { ...item };
  if (upgraded['topics'] === undefined) upgraded['topics'] = {};
  if (upgraded['transactionalStatus'] === undefined) {
    const reasons = Array.isArray(item['reasons']) ? item['reasons'].filter((r) => typeof r === 'string') : [];
    const blocked =
      reasons.some((r) => r !== 'unsubscribe') || (item['status'] === 'suppressed' && reasons.length === 0);
    upgraded['transactionalStatus'] = blocked ? 'suppressed' : 'active';
  }
  return upgraded;
}

/**
 * Version 2 → 3: message ids. Evidence and soft-bounce entries may carry the provider's `messageId`, and
 * the soft-bounce budget counts one strike per message. A version-2 entry has none, and an entry
 * without one is a strike of its own, which is exactly what it was: nothing to rewrite. The version
 * still moves, so that a writer from before message ids refuses to write such an item back in its
 * older reading (see isNewerSuppressionSchema).
 */
function addMessageIds(item: StoredItem): StoredItem {
  return item;
}

/**
 * Version 3 → 4: a reactivation keeps what it discounted. Evidence dated at or before `reactivatedAt`
 * moves to the derived `discounted` map instead of being dropped. A version-3 item dropped it, so
 * there is nothing to move; the version moves so that an older writer does not rewrite the item and
 * lose the map.
 */
function keepDiscounted(item: StoredItem): StoredItem {
  return item;
}

/**
 * Version 4 → 5: sync. The item carries what Ratchet pushed to each provider (`sync`) and the outbox
 * (`syncChange`, `syncPending`, `syncDue`: adapters/suppression-sync-fields.ts). A version-4 item has
 * none: nothing was pushed, and its next write computes the outbox from the record. The version moves
 * so that an older writer never rewrites the item and drops a pending outbox marker.
 */
function addSync(item: StoredItem): StoredItem {
  return item;
}

/**
 * Version 5 → 6: the outbox marker is sharded, and a retried push remembers when it started. The index
 * key `syncPending` was the constant `pending`; it is now `pending#<n>` from the address
 * (core/sync/shard.ts), so the backlog no longer sits in one index partition. A provider's `sync` entry
 * may carry `retrying: {change, since}`, the first counted failure of that change (absent on a
 * version-5 item: none was recorded, and the next failure starts the count). The stored item keeps its
 * old key until it is written again; the sweeper also reads the old key, and moves each marker it leases.
 */
function shardMarker(item: StoredItem): StoredItem {
  if (item['syncPending'] !== LEGACY_PENDING_KEY || typeof item['email'] !== 'string') return item;
  return { ...item, syncPending: pendingKey(item['email']) };
}

/** Oldest first; each reads the version in `from` and returns the next. */
export const SUPPRESSION_SCHEMA_STEPS: readonly SchemaStep<StoredItem>[] = [
  { from: 1, change: 'topics and transactionalStatus', upgrade: addTopics },
  { from: 2, change: 'messageId on evidence and soft-bounce entries', upgrade: addMessageIds },
  { from: 3, change: 'discounted evidence kept by reactivations', upgrade: keepDiscounted },
  { from: 4, change: 'sync map and outbox marker', upgrade: addSync },
  { from: 5, change: 'sharded outbox marker, retry start per provider', upgrade: shardMarker },
];

const CHAIN = schemaChain('suppression', SUPPRESSION_SCHEMA_STEPS);

/** The version every write stores. */
export const CURRENT_SUPPRESSION_SCHEMA = CHAIN.current;

/** The version an item was written with: its `schemaVersion`, or 1 for an item written before the attribute. */
export function suppressionSchemaOf(item: object): number {
  const version = (item as StoredItem)[SUPPRESSION_SCHEMA_ATTRIBUTE];
  if (version === undefined || version === null) return FIRST_VERSION;
  if (typeof version !== 'number')
    throw new TypeError(`suppression item has a ${typeof version} schemaVersion, not a version number`);
  return version;
}

/** True when newer code wrote the item: a writer must not overwrite it with an older shape. */
export function isNewerSuppressionSchema(item: object): boolean {
  return CHAIN.isNewer(suppressionSchemaOf(item));
}

/**
 * Any stored item (or projection) in today's shape, `schemaVersion` set to the version it now has. Pure: the
 * argument is not changed. An item from newer code is returned with its own version, unchanged.
 */
export function upgradeSuppressionRecord(item: StoredItem): StoredItem {
  const version = suppressionSchemaOf(item);
  if (CHAIN.isNewer(version)) return item;
  return { ...CHAIN.upgrade(item, version), [SUPPRESSION_SCHEMA_ATTRIBUTE]: CURRENT_SUPPRESSION_SCHEMA };
}
