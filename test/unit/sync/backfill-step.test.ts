/**
 * One backfill step (core/sync/backfill.ts) over a scripted table, every read and save recorded: which
 * records are candidates (a topic opt-out counts, a subscribed topic does not), the page sizes the step
 * asks for (its remaining budget, at most MAX_PAGE), the budget counting only marks that landed, the
 * deadline, and the progress it saves (fresh start values, `doneAt` only after the last page).
 */
import { describe, expect, it } from 'vitest';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import {
  type BackfillCandidate,
  type BackfillPorts,
  type BackfillProgress,
  backfillMark,
  backfillStep,
} from '../../../lambdas/core/sync/backfill.js';

const row = (email: string, over: Partial<SuppressionRecord> = {}): BackfillCandidate => ({
  record: { email, status: 'suppressed', reason: 'complaint', ...over } as unknown as SuppressionRecord,
  sync: {},
  change: 1,
  pending: false,
});
const active = (email: string) => row(email, { status: 'active' } as Partial<SuppressionRecord>);

/**
 * `rows` read in order, the cursor an index. `lost`: addresses whose mark finds a marker already set
 * (false). `clock`: the time each `now()` returns, in turn (the last one repeated).
 */
function table(rows: BackfillCandidate[], o: { lost?: string[]; clock?: number[] } = {}) {
  const scans: Array<[string | undefined, number]> = [];
  const marks: string[] = [];
  const saved: BackfillProgress[] = [];
  let stored: BackfillProgress | undefined;
  let tick = 0;
  const ports: BackfillPorts = {
    now: () => o.clock?.[Math.min(tick++, o.clock.length - 1)] ?? 1_000,
    progress: async () => stored,
    save: async (_provider, progress) => {
      stored = progress;
      saved.push(progress);
    },
    scan: async (cursor, limit) => {
      scans.push([cursor, limit]);
      const start = cursor === undefined ? 0 : Number(cursor);
      const end = start + limit;
      return { items: rows.slice(start, end), ...(end < rows.length ? { cursor: String(end) } : {}) };
    },
    mark: async (email) => {
      marks.push(email);
      return !(o.lost ?? []).includes(email);
    },
  };
  return { ports, scans, marks, saved, store: (p: BackfillProgress) => void (stored = p) };
}

const step = { deadline: 2_000, writeConcurrency: 4 };
const many = (n: number) => Array.from({ length: n }, (_, i) => row(`u${i}@x`));

describe('which records the backfill gives a provider', () => {
  it('a topic opt-out counts; a record with only subscribed topics holds nothing to push', () => {
    const topics = (status: string) =>
      row('t@x', { status: 'active', topics: { news: { status }, promo: { status: 'subscribed' } } } as never);
    expect(backfillMark(topics('unsubscribed'), 'sendgrid')).toBe('change');
    expect(backfillMark(topics('subscribed'), 'sendgrid')).toBeUndefined();
  });
});

describe('one backfill step', () => {
  it('asks for pages of its remaining budget, stops once the budget is marked, and saves where it stopped', async () => {
    const t = table([active('a@x'), ...many(9)]);
    const p = await backfillStep(t.ports, 'sendgrid', { ...step, budget: 3 });
    // The first page of three held one active record (two marked): the next asks for the one left.
    expect(t.scans).toEqual([
      [undefined, 3],
      ['3', 1],
    ]);
    expect(t.marks).toEqual(['u0@x', 'u1@x', 'u2@x']);
    expect(p).toStrictEqual({ cursor: '4', done: false, scanned: 4, marked: 3, startedAt: 1_000 });
  });

  it('a budget above MAX_PAGE asks for pages of 500', async () => {
    const t = table(many(1_200));
    const p = await backfillStep(t.ports, 'sendgrid', { ...step, budget: 10_000 });
    expect(t.scans).toEqual([
      [undefined, 500],
      ['500', 500],
      ['1000', 500],
    ]);
    expect(p).toMatchObject({ done: true, scanned: 1_200, marked: 1_200 });
  });

  it('a mark that finds a marker already set is not counted toward the budget or the progress', async () => {
    const t = table(many(5), { lost: ['u0@x'] });
    const p = await backfillStep(t.ports, 'sendgrid', { ...step, budget: 2 });
    expect(t.scans).toEqual([
      [undefined, 2],
      ['2', 1],
    ]);
    expect(t.marks).toEqual(['u0@x', 'u1@x', 'u2@x']);
    expect(p).toStrictEqual({ cursor: '3', done: false, scanned: 3, marked: 2, startedAt: 1_000 });
  });

  it('a fresh walk without aliases saves no `scopes`, and `doneAt` only on the page that ends the table', async () => {
    const t = table(many(3), { clock: [100, 200, 300, 400, 500, 600] });
    const p = await backfillStep(t.ports, 'sendgrid', { ...step, budget: 2 });
    // now(): 100 start, 200 loop check, 300 due; next step: 400 loop check, 500 due, 600 doneAt.
    expect(t.saved).toStrictEqual([{ cursor: '2', done: false, scanned: 2, marked: 2, startedAt: 100 }]);
    expect(p).not.toHaveProperty('doneAt');
    const last = await backfillStep(t.ports, 'sendgrid', { ...step, budget: 2 });
    expect(last).toStrictEqual({ done: true, scanned: 3, marked: 3, startedAt: 100, doneAt: 600 });
    expect(t.saved).toHaveLength(2);
  });

  it('reads no page at or after its deadline, and none once the deadline passed mid-step', async () => {
    const at = table(many(3), { clock: [2_000] });
    expect(await backfillStep(at.ports, 'sendgrid', { ...step, budget: 10 })).toStrictEqual({
      done: false,
      scanned: 0,
      marked: 0,
      startedAt: 2_000,
    });
    expect(at.scans).toEqual([]);
    // Nothing to mark, so only the deadline ends it. Start 1_000, check 1_999 (a page), due 1_999, check 2_000: stop.
    const mid = table(['a@x', 'b@x', 'c@x'].map(active), { clock: [1_000, 1_999, 1_999, 2_000] });
    expect(await backfillStep(mid.ports, 'sendgrid', { ...step, budget: 1 })).toStrictEqual({
      cursor: '1',
      done: false,
      scanned: 1,
      marked: 0,
      startedAt: 1_000,
    });
    expect(mid.scans).toEqual([[undefined, 1]]);
  });
});
