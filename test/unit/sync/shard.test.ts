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

describe('the shard hash and the marker keys', () => {
  it('is 32-bit FNV-1a over exactly the address’s UTF-16 code units (the published test vectors)', () => {
    // The FNV-1a 32-bit vectors of the reference code's test suite (Landon Curt Noll, test_fnv.c,
    // isthe.com/chongo/tech/comp/fnv), also in draft-eastlake-fnv. With 2^32 "shards" the remainder is the hash.
    expect(shardOf('', 2 ** 32)).toBe(0x811c9dc5);
    expect(shardOf('a', 2 ** 32)).toBe(0xe40c292c);
    expect(shardOf('foobar', 2 ** 32)).toBe(0xbf9cf968);
  });

  it('pins where known addresses land: the spread tests above pass for any permutation of the shards', () => {
    expect(pendingKey('a@example.com')).toBe('pending#1');
    expect(pendingKey('zoë@example.org')).toBe('pending#1');
    expect(pendingKey('user@campaign.example.com')).toBe('pending#11');
    expect(shardOf('')).toBe(5);
  });

  it('a marker value is ours only as the legacy key or a shard key; anything else, strings or not, is not', () => {
    for (const key of [LEGACY_PENDING_KEY, 'pending#0', 'pending#15']) expect(isPendingKey(key)).toBe(true);
    for (const value of ['Pending', 'pending0', 'pending-1', 'xpending#1', '', undefined, null, 16, {}, ['pending']])
      expect(isPendingKey(value)).toBe(false);
  });
});
