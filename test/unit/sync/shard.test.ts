/**
 * The outbox marker's shards: every address lands on one of SYNC_PENDING_SHARDS index partitions, the
 * same one every time, and a campaign-sized burst spreads evenly enough that no partition takes much
 * more than its share (DynamoDB's 1,000 write units a second per partition is what binds).
 */
import { describe, expect, it } from 'vitest';
import {
  allPendingKeys,
  isPendingKey,
  LEGACY_PENDING_KEY,
  pendingKey,
  SYNC_PENDING_SHARDS,
  shardOf,
} from '../../../lambdas/core/sync/shard.js';

describe('pending shards', () => {
  it('an address always maps to the same shard, in range', () => {
    for (const email of ['a@example.com', 'zoë@example.org', 'x'.repeat(300)]) {
      expect(pendingKey(email)).toBe(pendingKey(email));
      expect(shardOf(email)).toBeGreaterThanOrEqual(0);
      expect(shardOf(email)).toBeLessThan(SYNC_PENDING_SHARDS);
      expect(pendingKey(email)).toBe(`pending#${shardOf(email)}`);
    }
  });

  it('100,000 campaign addresses: every shard used, none above 1.1x its share', () => {
    const counts = new Array<number>(SYNC_PENDING_SHARDS).fill(0);
    const n = 100_000;
    for (let i = 0; i < n; i++) counts[shardOf(`user${i}@campaign.example.com`)]!++;
    const share = n / SYNC_PENDING_SHARDS;
    expect(Math.min(...counts)).toBeGreaterThan(share * 0.9);
    expect(Math.max(...counts)).toBeLessThan(share * 1.1);
  });

  it('addresses differing in one character land on different shards', () => {
    const shards = new Set(Array.from({ length: 64 }, (_, i) => shardOf(`a${i}@x.com`)));
    expect(shards.size).toBe(SYNC_PENDING_SHARDS);
  });

  it('the sweeper reads every shard once, and the old single partition last', () => {
    const keys = allPendingKeys();
    expect(keys).toHaveLength(SYNC_PENDING_SHARDS + 1);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.at(-1)).toBe(LEGACY_PENDING_KEY);
    for (let n = 0; n < SYNC_PENDING_SHARDS; n++) expect(keys).toContain(`pending#${n}`);
    expect(keys.every(isPendingKey)).toBe(true);
    expect(isPendingKey('done')).toBe(false);
  });
});
