/**
 * SortedSpill (the external merge sort behind `sync reconcile`) and joinSorted: every item back, in key
 * order, whether it fit in one buffer or spilled many runs; the join pairs each key's record with all
 * of its entries, and keys on one side only come out alone.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RUN_BYTES, joinSorted, READ_BUFFER_BYTES, SortedSpill } from '../../../lib/cli/sorted-spill.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spill-test-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const byKey = (a: { k: string }, b: { k: string }) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0);

describe('SortedSpill', () => {
  it('spills runs of about runBytes and merges them back in key order, every item once', async () => {
    const spill = new SortedSpill<{ k: string; n: number }>(dir, 's', (i) => i.k, 200);
    const items = Array.from({ length: 500 }, (_, n) => ({ k: `k${(n * 7919) % 500}`, n }));
    for (const item of items) await spill.add(item);
    expect((await readdir(dir)).length).toBeGreaterThan(10);
    const got = await all(spill.sorted());
    expect(got).toEqual([...items].sort(byKey));
  });

  it('what fits in one buffer is sorted in memory, with no file', async () => {
    const spill = new SortedSpill<{ k: string }>(dir, 's', (i) => i.k);
    for (const k of ['b', 'a', 'c']) await spill.add({ k });
    expect(await all(spill.sorted())).toEqual([{ k: 'a' }, { k: 'b' }, { k: 'c' }]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('orders by code unit, not by locale (the same order on both sides of a join)', async () => {
    const spill = new SortedSpill<{ k: string }>(dir, 's', (i) => i.k, 1);
    for (const k of ['b@x', 'B@x', 'a@x', 'é@x', 'z@x']) await spill.add({ k });
    expect((await all(spill.sorted())).map((i) => i.k)).toEqual(['B@x', 'a@x', 'b@x', 'z@x', 'é@x']);
  });

  it('keeps lines that hold newlines and quotes intact', async () => {
    const spill = new SortedSpill<{ k: string; text: string }>(dir, 's', (i) => i.k, 1);
    await spill.add({ k: 'b', text: 'two\nlines "quoted"' });
    await spill.add({ k: 'a', text: '\r\n' });
    expect(await all(spill.sorted())).toEqual([
      { k: 'a', text: '\r\n' },
      { k: 'b', text: 'two\nlines "quoted"' },
    ]);
  });

  it('docs/sync.md quotes the run size and the read buffer used here', async () => {
    const doc = (await readFile(new URL('../../../docs/sync.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ');
    expect(doc).toContain(`buffer reaches ${DEFAULT_RUN_BYTES / 1024 / 1024} MB of JSON`);
    expect(doc).toContain(`a ${READ_BUFFER_BYTES / 1024} KiB read buffer per run`);
  });

  it('refuses an add once merging has begun', async () => {
    const spill = new SortedSpill<{ k: string }>(dir, 's', (i) => i.k);
    await all(spill.sorted());
    await expect(spill.add({ k: 'a' })).rejects.toThrow(/after sorted/);
  });

  it('any items, any run size: the same as an in-memory sort', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 400 }),
        async (keys, runBytes) => {
          const sub = await mkdtemp(join(dir, 'p-'));
          const spill = new SortedSpill<{ k: string; i: number }>(sub, 's', (x) => x.k, runBytes);
          const items = keys.map((k, i) => ({ k, i }));
          for (const item of items) await spill.add(item);
          const got = await all(spill.sorted());
          expect(got.map((x) => x.k)).toEqual(items.map((x) => x.k).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
          expect(got.map((x) => x.i).sort((a, b) => a - b)).toEqual(items.map((x) => x.i));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('joinSorted', () => {
  async function* from<T>(items: T[]): AsyncGenerator<T> {
    yield* items;
  }

  it('each key once: its record (if any) with every entry of that key', async () => {
    const records = [{ email: 'a' }, { email: 'c' }, { email: 'e' }];
    const entries = [
      { email: 'a', list: 'x' },
      { email: 'a', list: 'y' },
      { email: 'b', list: 'x' },
      { email: 'e', list: 'z' },
      { email: 'f', list: 'x' },
    ];
    const got = await all(
      joinSorted(
        from(records),
        (r) => r.email,
        from(entries),
        (e) => e.email,
      ),
    );
    expect(got).toEqual([
      { key: 'a', item: { email: 'a' }, group: [entries[0], entries[1]] },
      { key: 'b', group: [entries[2]] },
      { key: 'c', item: { email: 'c' }, group: [] },
      { key: 'e', item: { email: 'e' }, group: [entries[3]] },
      { key: 'f', group: [entries[4]] },
    ]);
  });

  it('either side empty', async () => {
    const key = (x: { email: string }) => x.email;
    expect(await all(joinSorted(from([]), key, from([{ email: 'a' }]), key))).toEqual([
      { key: 'a', group: [{ email: 'a' }] },
    ]);
    expect(await all(joinSorted(from([{ email: 'a' }]), key, from([]), key))).toEqual([
      { key: 'a', item: { email: 'a' }, group: [] },
    ]);
    expect(await all(joinSorted(from([]), key, from([]), key))).toEqual([]);
  });
});
