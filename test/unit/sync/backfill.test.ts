/**
 * The backfill step (core/sync/backfill.ts) over an in-memory table: which records a new provider gets,
 * the per-step budget (the provider's rate over one interval), and a crash mid-page that resumes from
 * the saved cursor with no record marked twice; and a walk made again when the provider's aliases change,
 * marking only what the plan under the new aliases still pushes there.
 */
import { describe, expect, it } from 'vitest';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import {
  type BackfillCandidate,
  type BackfillPorts,
  type BackfillProgress,
  backfillBudget,
  backfillMark,
  backfillStep,
  scopeFingerprint,
} from '../../../lambdas/core/sync/backfill.js';
import type { PlanContext } from '../../../lambdas/core/sync/plan.js';
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
  const why: string[] = [];
  let scans = 0;
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
      scans++;
      const start = cursor === undefined ? 0 : Number(cursor);
      const items = rows.slice(start, start + limit);
      return { items, ...(start + limit < rows.length ? { cursor: String(start + limit) } : {}) };
    },
    mark: async (email, _due, reason) => {
      markCalls++;
      if (options.failMarkAt !== undefined && markCalls === options.failMarkAt) throw new Error('killed');
      const row = rows.find((r) => r.record.email === email)!;
      // As the adapter does: `scopes` counts a new change, marker or not; `change` needs no live marker.
      if (reason === 'scopes') row.change++;
      else if (row.pending) return false;
      row.pending = true;
      marked.push(email);
      why.push(reason);
      return true;
    },
  };
  return { ports, marked, why, saved, scans: () => scans, store: (p: BackfillProgress) => void (stored = p) };
}

describe('backfillMark', () => {
  it('a suppressed address or a topic opt-out the provider has not caught up with; nothing else', () => {
    expect(backfillMark(candidate('a@x'), 'sendgrid')).toBe('change');
    expect(backfillMark(candidate('a@x', {}, {}, 0), 'sendgrid')).toBe('change');
    expect(
      backfillMark(
        candidate('t@x', { status: 'active', topics: { news: { status: 'unsubscribed' } } as never }),
        'sendgrid',
      ),
    ).toBe('change');
    expect(backfillMark(candidate('b@x', { status: 'active' }), 'sendgrid')).toBeUndefined();
    expect(
      backfillMark(candidate('c@x', {}, { sendgrid: { at: 1, lists: [], change: 1 } }), 'sendgrid'),
    ).toBeUndefined();
    expect(backfillMark(candidate('c@x', {}, { ses: { at: 1, lists: [], change: 1 } }), 'sendgrid')).toBe('change');
    expect(backfillMark({ ...candidate('d@x'), pending: true }, 'sendgrid')).toBeUndefined();
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
    const expected = rows().filter((c) => backfillMark(c, 'sendgrid') !== undefined).length;
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
    const expected = rows().filter((c) => backfillMark(c, 'sendgrid') !== undefined).length;
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

describe('a walk under new aliases', () => {
  const GROUP = /^sendgrid:group:\d+$/;
  const plan = (aliases: Record<string, string>): PlanContext => ({
    aliases: new Map(Object.entries(aliases)),
    handlesScope: (scope) => GROUP.test(scope),
  });
  const NEWS = { 'sendgrid:group:7': 'newsletter' };
  const optedOut = (email: string, sync: SyncMap) =>
    candidate(email, { status: 'active', topics: { newsletter: { status: 'unsubscribed' } } as never }, sync);
  const caughtUp = (extra: object = {}): SyncMap => ({ sendgrid: { at: 1, lists: [], change: 1, ...extra } });
  const inGroup7 = caughtUp({ scopes: { 'sendgrid:group:7': ['group:7'] } });

  it('marks `scopes` only what the plan under the aliases still pushes, and leaves dead or refused changes alone', () => {
    expect(backfillMark(optedOut('a@x', caughtUp()), 'sendgrid', plan(NEWS))).toBe('scopes');
    expect(backfillMark(optedOut('a@x', caughtUp()), 'sendgrid', plan({}))).toBeUndefined();
    expect(backfillMark(optedOut('a@x', caughtUp()), 'sendgrid')).toBeUndefined();
    expect(backfillMark(optedOut('b@x', inGroup7), 'sendgrid', plan(NEWS))).toBeUndefined();
    expect(backfillMark(optedOut('c@x', {}), 'sendgrid', plan(NEWS))).toBe('change');
    expect(
      backfillMark(optedOut('d@x', caughtUp({ refused: [{ list: 'group:7', why: '404' }] })), 'sendgrid', plan(NEWS)),
    ).toBeUndefined();
    const dead: SyncMap = {
      sendgrid: { at: 1, lists: [], change: 0, failed: { change: 1, at: 1, error: 'x' } } as never,
    };
    expect(backfillMark(optedOut('e@x', dead), 'sendgrid', plan(NEWS))).toBeUndefined();
    // Pending for another provider (another walk's mark): its message would not come here, so still `scopes`.
    expect(backfillMark({ ...optedOut('f@x', caughtUp()), pending: true }, 'sendgrid', plan(NEWS))).toBe('scopes');
    // Pending and lagging here: the marker's message comes here anyway.
    expect(backfillMark({ ...optedOut('g@x', {}), pending: true }, 'sendgrid', plan(NEWS))).toBeUndefined();
  });

  it('the fingerprint holds the entries naming one of the provider’s scopes, in any order', () => {
    const mixed = plan({
      'ses:main:weekly': 'newsletter',
      'sendgrid:group:7': 'newsletter',
      'sendgrid:group:8': 'promo',
    });
    expect(scopeFingerprint(mixed)).toBe(JSON.stringify(['sendgrid:group:7=newsletter', 'sendgrid:group:8=promo']));
    expect(scopeFingerprint(plan({ 'sendgrid:group:8': 'promo', 'sendgrid:group:7': 'newsletter' }))).toBe(
      scopeFingerprint(mixed),
    );
    expect(scopeFingerprint(plan({ 'ses:main:weekly': 'sendgrid:group:9' }))).toBe(
      JSON.stringify(['ses:main:weekly=sendgrid:group:9']),
    );
    expect(scopeFingerprint(plan({}))).toBe('[]');
  });

  const rows = () => [
    optedOut('o1@x', caughtUp()),
    optedOut('o2@x', inGroup7),
    candidate('s@x', {}, caughtUp({ reason: 'complaint' })),
  ];
  const options = (aliases: Record<string, string>) => ({
    budget: 100,
    deadline: 2_000,
    writeConcurrency: 4,
    plan: plan(aliases),
  });

  it('a walk done under the same aliases is not made again', async () => {
    const t = table(rows());
    const first = await backfillStep(t.ports, 'sendgrid', options(NEWS));
    expect(first).toMatchObject({ done: true, scanned: 3, marked: 1, scopes: scopeFingerprint(plan(NEWS)) });
    expect(t.why).toEqual(['scopes']);
    expect(await backfillStep(t.ports, 'sendgrid', options(NEWS))).toBe(first);
    expect(t.scans()).toBe(1);
  });

  it('a walk done under other aliases, or before walks kept them (none), is made again', async () => {
    const t = table(rows());
    t.store({ done: true, scanned: 3, marked: 0, startedAt: 1, doneAt: 2 });
    // Kept before the fingerprint: taken as made under no aliases, so none now needs no new walk.
    expect(await backfillStep(t.ports, 'sendgrid', options({}))).toMatchObject({ done: true, doneAt: 2 });
    expect(t.scans()).toBe(0);
    const again = await backfillStep(t.ports, 'sendgrid', options(NEWS));
    expect(again).toMatchObject({ done: true, scanned: 3, marked: 1, startedAt: 1_000, doneAt: 1_000 });
    expect(t.marked).toEqual(['o1@x']);
    expect(t.why).toEqual(['scopes']);
  });

  it('a record another walk marked in the same sweep still gets this provider’s scopes, once', async () => {
    const t = table([{ ...optedOut('p@x', caughtUp()), pending: true }]);
    expect(await backfillStep(t.ports, 'sendgrid', options(NEWS))).toMatchObject({ done: true, marked: 1 });
    expect(t.why).toEqual(['scopes']);
    // The new change makes sendgrid lag: a walk over it again (a repeated page) marks nothing more.
    t.store({ done: false, scanned: 0, marked: 1, startedAt: 1, scopes: scopeFingerprint(plan(NEWS)) });
    await backfillStep(t.ports, 'sendgrid', options(NEWS));
    expect(t.why).toEqual(['scopes']);
  });

  it('an unfinished walk under other aliases starts over from the first page', async () => {
    const t = table(rows());
    t.store({ done: false, cursor: '2', scanned: 2, marked: 0, startedAt: 1, scopes: '[]' });
    const p = await backfillStep(t.ports, 'sendgrid', options(NEWS));
    expect(p).toMatchObject({ done: true, scanned: 3, marked: 1 });
    expect(t.marked).toEqual(['o1@x']);
  });
});
