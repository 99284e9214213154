/**
 * An external merge sort, for CLI comparisons that must not hold a whole table or list in memory
 * (`sync reconcile`). Items are added in any order and buffered until the buffer reaches `runBytes` of
 * JSON; the buffer is then sorted by key and written to a file of its own (a run), one JSON line per
 * item. `sorted()` merges the runs through a heap, reading each file line by line.
 *
 * Memory: one run's buffer while adding; while merging, per run, the file stream's 64 KiB buffer and
 * the up to 1,024 lines node's readline queues before it pauses the file. A 100,000-record table is a
 * handful of runs; 1,000 runs (some 4 GB of JSON) would hold about 300 MB while merging, the point
 * past which a merge in passes would be needed. Disk: about the JSON size of everything added.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A run is written once its JSON reaches this many bytes. */
export const DEFAULT_RUN_BYTES = 4 * 1024 * 1024;
/** Each run file's read buffer while merging. */
export const READ_BUFFER_BYTES = 64 * 1024;

export class SortedSpill<T> {
  private buffer: Array<{ key: string; line: string }> = [];
  private bufferBytes = 0;
  private readonly runs: string[] = [];
  private merging = false;

  /**
   * `dir` must exist and belong to the caller, who removes it; `name` keeps two spills in one dir apart.
   * Keys are compared by UTF-16 code unit (`<`), the same order whatever the locale.
   */
  constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly key: (item: T) => string,
    private readonly runBytes = DEFAULT_RUN_BYTES,
  ) {}

  async add(item: T): Promise<void> {
    if (this.merging) throw new Error('SortedSpill: add after sorted()');
    const line = JSON.stringify(item);
    this.buffer.push({ key: this.key(item), line });
    this.bufferBytes += line.length + 1;
    if (this.bufferBytes >= this.runBytes) await this.spill();
  }

  /** Every item added, in key order (equal keys in no particular order). Call once, after the last add. */
  async *sorted(): AsyncGenerator<T> {
    this.merging = true;
    if (this.runs.length === 0) {
      // Everything fit in one buffer: no file needed.
      const items = this.takeSortedBuffer();
      for (const { line } of items) yield JSON.parse(line) as T;
      return;
    }
    await this.spill();
    const heads = new MinHeap<Head<T>>((a, b) => a.key < b.key);
    const readers: Array<ReturnType<typeof createInterface>> = [];
    try {
      for (const file of this.runs) {
        const reader = createInterface({
          input: createReadStream(file, { encoding: 'utf8', highWaterMark: READ_BUFFER_BYTES }),
          crlfDelay: Number.POSITIVE_INFINITY,
        });
        readers.push(reader);
        const rest = reader[Symbol.asyncIterator]();
        const first = await rest.next();
        if (!first.done) heads.push(this.head(first.value, rest));
      }
      for (let top = heads.pop(); top !== undefined; top = heads.pop()) {
        yield top.item;
        const next = await top.rest.next();
        if (!next.done) heads.push(this.head(next.value, top.rest));
      }
    } finally {
      for (const reader of readers) reader.close();
    }
  }

  private head(line: string, rest: AsyncIterator<string>): Head<T> {
    const item = JSON.parse(line) as T;
    return { key: this.key(item), item, rest };
  }

  private takeSortedBuffer(): Array<{ key: string; line: string }> {
    const items = this.buffer.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.buffer = [];
    this.bufferBytes = 0;
    return items;
  }

  private async spill(): Promise<void> {
    if (this.buffer.length === 0) return;
    const file = join(this.dir, `${this.name}-${this.runs.length}.jsonl`);
    const out = createWriteStream(file, { encoding: 'utf8' });
    for (const { line } of this.takeSortedBuffer()) {
      if (!out.write(`${line}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    this.runs.push(file);
  }
}

interface Head<T> {
  key: string;
  item: T;
  rest: AsyncIterator<string>;
}

/**
 * Two key-sorted streams side by side: for each key in either, the one item of `unique` with that key
 * (a table's record: keys are unique there) and every item of `grouped` with it (a provider's entries:
 * one address may sit on several lists). Holds one key's group at a time.
 */
export async function* joinSorted<U, G>(
  unique: AsyncIterable<U>,
  uniqueKey: (item: U) => string,
  grouped: AsyncIterable<G>,
  groupedKey: (item: G) => string,
): AsyncGenerator<{ key: string; item?: U; group: G[] }> {
  const left = unique[Symbol.asyncIterator]();
  const right = grouped[Symbol.asyncIterator]();
  let u = await left.next();
  let g = await right.next();
  while (!u.done || !g.done) {
    const uk = u.done ? undefined : uniqueKey(u.value);
    const gk = g.done ? undefined : groupedKey(g.value);
    // The smaller key (strings: Math.min does not apply); one of the two is defined inside the loop.
    const key = gk === undefined || (uk !== undefined && uk < gk) ? uk! : gk;
    const group: G[] = [];
    while (!g.done && groupedKey(g.value) === key) {
      group.push(g.value);
      g = await right.next();
    }
    if (uk === key && !u.done) {
      const item = u.value;
      u = await left.next();
      yield { key, item, group };
    } else yield { key, group };
  }
}

/** A binary min-heap: the merge's next line among the runs' heads. */
class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  push(item: T): void {
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && this.less(items[left]!, items[least]!)) least = left;
      if (right < items.length && this.less(items[right]!, items[least]!)) least = right;
      if (least === i) break;
      [items[i], items[least]] = [items[least]!, items[i]!];
      i = least;
    }
    return top;
  }
}
