import { describe, expect, it } from 'vitest';
import { chunk, settleWithLimit } from '../../../lambdas/core/pipeline/concurrency.js';

/** Runs `settleWithLimit` over `count` items whose work waits a turn, and reports the most ever in flight. */
async function peakInFlight(count: number, limit: number) {
  let inFlight = 0;
  let peak = 0;
  const items = Array.from({ length: count }, (_, i) => i);
  const results = await settleWithLimit(items, limit, async (i) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
    return i * 10;
  });
  return { peak, results };
}

describe('settleWithLimit', () => {
  it('settles every item in input order, fulfilled or rejected, without failing fast', async () => {
    const results = await settleWithLimit(['a', 'boom', 'c'], 2, async (item) => {
      if (item === 'boom') throw new Error('no');
      return item.toUpperCase();
    });
    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('no') },
      { status: 'fulfilled', value: 'C' },
    ]);
  });

  it('keeps at most `limit` items in flight', async () => {
    const { peak, results } = await peakInFlight(7, 3);
    expect(peak).toBe(3);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toEqual([0, 10, 20, 30, 40, 50, 60]);
  });

  it('never starts more workers than there are items, nor fewer than one', async () => {
    expect((await peakInFlight(2, 32)).peak).toBe(2);
    const { peak, results } = await peakInFlight(3, 0);
    expect(peak).toBe(1);
    expect(results).toHaveLength(3);
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
  });

  it('settles nothing for no items', async () => {
    expect(await settleWithLimit([], 4, async () => 1)).toEqual([]);
  });
});

describe('chunk', () => {
  it('cuts into slices of `size`, the last one shorter, and never adds an empty slice', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    // A length that is a multiple of the size: an extra empty batch would be an invalid SQS SendMessageBatch.
    expect(chunk([1, 2, 3, 4], 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(chunk([], 10)).toEqual([]);
  });
});
