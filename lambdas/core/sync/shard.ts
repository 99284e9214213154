/**
 * The outbox marker's shard: the `sync-due` index's partition key is `pending#<n>`, `n` taken from a
 * hash of the address, so the backlog is spread over SYNC_PENDING_SHARDS index partitions instead of
 * one. Pure.
 *
 * Why 16. DynamoDB gives one partition at most 1,000 write units a second, and a throttled global
 * secondary index throttles the base table's writes too (the suppression writes of the consumer and of
 * `suppressions import` would then fail and dead-letter). A sync change costs about three index writes
 * (the marker put in the write, the worker's `sync` update of the projected map, the clear; a sweeper
 * lease moves the sort key: one delete and one put more). One partition therefore caps the outbox at
 * roughly 300 changes a second; sixteen cap it near 5,000, above the consumer's own ceiling (5 copies
 * of 100-event batches) and a 1 M-address import's pace, while the sweeper pays only sixteen small
 * queries a minute to read every shard.
 */

/** How many index partitions the pending markers are spread over. */
export const SYNC_PENDING_SHARDS = 16;

/** The marker written before the shards: one constant partition. Still read until none is left. */
export const LEGACY_PENDING_KEY = 'pending';

const SHARD_PREFIX = 'pending#';

/** FNV-1a over the address's UTF-16 code units: stable, cheap, evenly spread for addresses. */
export function shardOf(email: string, shards: number = SYNC_PENDING_SHARDS): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    hash ^= email.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/** The index partition key for `email`'s pending marker. */
export function pendingKey(email: string): string {
  return `${SHARD_PREFIX}${shardOf(email)}`;
}

/** Every key the sweeper reads: each shard, then the legacy partition (empty once every old marker moved). */
export function allPendingKeys(): string[] {
  return [...Array.from({ length: SYNC_PENDING_SHARDS }, (_, n) => `${SHARD_PREFIX}${n}`), LEGACY_PENDING_KEY];
}

/** Whether a stored marker value is one of ours (sharded or legacy). */
export function isPendingKey(value: unknown): value is string {
  return typeof value === 'string' && (value === LEGACY_PENDING_KEY || value.startsWith(SHARD_PREFIX));
}
