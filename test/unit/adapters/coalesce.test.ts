/**
 * coalescing(): calls close together share one flush. A batch is flushed when full or when its window
 * ends; a call after that opens the next batch; every caller of a batch settles with its flush.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coalescing } from '../../../lambdas/adapters/coalesce.js';

function recorder() {
  const flushed: number[][] = [];
  return { flushed, flush: async (items: number[]) => void flushed.push([...items]) };
}

describe('coalescing', () => {
  it('calls made in the same turn go out as one flush (window 0)', async () => {
    const { flushed, flush } = recorder();
    const add = coalescing(flush, { max: 10 });
    await Promise.all([1, 2, 3].map(add));
    expect(flushed).toEqual([[1, 2, 3]]);
  });

  it('a full batch is flushed at once, without waiting for its window, and the next call opens a new one', async () => {
    const { flushed, flush } = recorder();
    const add = coalescing(flush, { max: 3, windowMs: 60_000 });
    const started = Date.now();
    await Promise.all([1, 2, 3, 4, 5, 6].map(add));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(flushed).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  it('calls within the window join; a call after it has closed opens the next batch', async () => {
    const { flushed, flush } = recorder();
    const add = coalescing(flush, { max: 10, windowMs: 30 });
    const first = add(1);
    await sleep(5);
    const second = add(2);
    await Promise.all([first, second]);
    await add(3);
    expect(flushed).toEqual([[1, 2], [3]]);
  });

  it("a failed flush rejects every caller of that batch, and only that batch's", async () => {
    let calls = 0;
    const add = coalescing(
      async () => {
        if (++calls === 1) throw new Error('SQS down');
      },
      { max: 10 },
    );
    const results = await Promise.allSettled([add(1), add(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(add(3)).resolves.toBeUndefined();
  });
});
