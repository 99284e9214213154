/**
 * The backfill step (core/sync/backfill.ts) over an in-memory table: which records a new provider gets,
 * the per-step budget (the provider's rate over one interval), and a crash mid-page that resumes from
 * the saved cursor with no record marked twice.
 */
import { describe, expect, it } from 'vitest';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import {
  type BackfillCandidate,
  type BackfillPorts,
  type BackfillProgress,
  backfillBudget,
  backfillStep,
  needsBackfill,
} from '../../../lambdas/core/sync/backfill.js';
import type { SyncMap } from '../../../lambdas/core/sync/state.js';

const record = (email: string, over: Partial<SuppressionRecord> = {}) =>
  ({ email, status: 'suppressed', reason: 'complaint', ...over }) as unknown as SuppressionRecord;
const candidate = (email: string, over: Partial<SuppressionRecord> = {}, sync: SyncMap = {}, change = 1) => ({
  record: record(email, over),
  sync,
  change,
  pending: false,
});

function table(rows: BackfillCandidate[], options: { failMarkAt?: number } = {}) {
  const marked: string[] = [];
  const saved: BackfillProgress[] = [];
  let stored: BackfillProgress | undefined;
  let markCalls = 0;
  const ports: BackfillPorts = {
    now: () => 1_000,
    progress: async () => stored,
    save: async (_p, progress) => {
      stored = progress;
      saved.push(progress);
    },
    scan: async (cursor, limit) => {
      const start = cursor === undefined ? 0 : Number(cursor);
      const items = rows.slice(start, start + limit);
      return { items, ...(start + limit < rows.length ? { cursor: String(start + limit) } : {}) };
    },
    mark: async (email) => {
      markCalls++;
      if (options.failMarkAt !== undefined && markCalls === options.failMarkAt) throw new Error('killed');
      const row = rows.find((r) => r.record.email === email)!;
      if (row.pending) return false;
      row.pending = true;
      marked.push(email);
      return true;
    },
  };
  return { ports, marked, saved };
}

describe('needsBackfill', () => {
  it('a suppressed address or a topic opt-out the provider has not caught up with; nothing else', () => {
    expect(needsBackfill(candidate('a@x'), 'sendgrid')).toBe(true);
    expect(needsBackfill(candidate('a@x', {}, {}, 0), 'sendgrid')).toBe(true);
    expect(
      needsBackfill(
        candidate('t@x', { status: 'active', topics: { news: { status: 'unsubscribed' } } as never }),
        'sendgrid',
      ),
    ).toBe(true);
    expect(needsBackfill(candidate('b@x', { status: 'active' }), 'sendgrid')).toBe(false);
    expect(needsBackfill(candidate('c@x', {}, { sendgrid: { at: 1, lists: [], change: 1 } }), 'sendgrid')).toBe(false);
    expect(needsBackfill(candidate('c@x', {}, { ses: { at: 1, lists: [], change: 1 } }), 'sendgrid')).toBe(true);
    expect(needsBackfill({ ...candidate('d@x'), pending: true }, 'sendgrid')).toBe(false);
  });

  it('the budget is the provider rate over one interval', () => {
    expect(backfillBudget(10, 60_000)).toBe(600);
    expect(backfillBudget(0.001, 60_000)).toBe(1);
  });
});

describe('backfillStep', () => {
  const rows = () =>
    Array.from({ length: 500 }, (_, i) =>
      candidate(
        `u${i}@x`,
        i % 5 === 0 ? { status: 'active' } : {},
        i % 7 === 0 ? { sendgrid: { at: 1, lists: [], change: 1 } } : {},
      ),
    );

  it('marks at most its budget per step, saves the cursor after every page, and finishes', async () => {
    const t = table(rows());
    const progress: BackfillProgress[] = [];
    for (let step = 0; step < 20; step++) {
      const p = await backfillStep(t.ports, 'sendgrid', { budget: 100, deadline: 2_000, writeConcurrency: 4 });
      progress.push(p);
      if (p.done) break;
    }
    const expected = rows().filter((c) => needsBackfill(c, 'sendgrid')).length;
    expect(t.marked).toHaveLength(expected);
    expect(new Set(t.marked).size).toBe(expected);
    expect(progress.at(-1)).toMatchObject({ done: true, scanned: 500, marked: expected, doneAt: 1_000 });
    expect(progress.at(-1)).not.toHaveProperty('cursor');
    // Every step but the last marked exactly its budget or less.
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]!.marked - progress[i - 1]!.marked).toBeLessThanOrEqual(100);
    // Done stays done: no further reads.
    expect(await backfillStep(t.ports, 'sendgrid', { budget: 100, deadline: 2_000, writeConcurrency: 4 })).toBe(
      progress.at(-1),
    );
  });

  it('a crash mid-page: the cursor was not moved past it, the next step repeats the page and marks nobody twice', async () => {
    const t = table(rows(), { failMarkAt: 150 });
    await expect(
      (async () => {
        for (;;) await backfillStep(t.ports, 'sendgrid', { budget: 1_000, deadline: 2_000, writeConcurrency: 4 });
      })(),
    ).rejects.toThrow('killed');
    const before = t.saved.at(-1);
    let p: BackfillProgress;
    do p = await backfillStep(t.ports, 'sendgrid', { budget: 1_000, deadline: 2_000, writeConcurrency: 4 });
    while (!p.done);
    const expected = rows().filter((c) => needsBackfill(c, 'sendgrid')).length;
    expect(new Set(t.marked).size).toBe(expected);
    expect(t.marked).toHaveLength(expected);
    expect(before === undefined || (before.scanned < 500 && !before.done)).toBe(true);
  });

  it('stops at its deadline', async () => {
    const t = table(rows());
    const p = await backfillStep(t.ports, 'sendgrid', { budget: 100, deadline: 500, writeConcurrency: 4 });
    expect(p).toMatchObject({ done: false, scanned: 0, marked: 0 });
    expect(t.marked).toEqual([]);
  });
});
