/** reconcile --apply's pushes at the provider's configured rate, on an injected clock. */
import { describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../../lambdas/adapters/sync/http.js';
import type { PauseStore } from '../../../lambdas/adapters/sync-gate.js';
import { SYNC_DEFAULT_LIMITS } from '../../../lambdas/core/sync/settings.js';
import { type SyncProviderName, SyncRateLimitedError } from '../../../lambdas/core/sync/target.js';
import { reconcileGate, SharedPauses } from '../../../lib/cli/commands/sync-reconcile-pace.js';

function fakeClock() {
  let now = 1_000_000;
  return { now: () => now, wait: async (ms: number) => void (now += ms), at: () => now };
}

describe('reconcileGate', () => {
  it('N pushes at rate r take (N - 1) / r seconds: the first at once, then one interval apart', async () => {
    const clock = fakeClock();
    const gate = reconcileGate('sendgrid', { rate: 4 }, clock);
    const start = clock.at();
    const calledAt: number[] = [];
    for (let i = 0; i < 5; i++) await gate.run(async () => calledAt.push(clock.at() - start));
    expect(calledAt).toEqual([0, 250, 500, 750, 1000]);
  });

  it('never hands a push back, however far its slot lies ahead (Resend at its default 1 call/s)', async () => {
    const clock = fakeClock();
    const gate = reconcileGate('resend', SYNC_DEFAULT_LIMITS.resend, clock);
    const start = clock.at();
    for (let i = 0; i < 20; i++) await gate.run(async () => undefined);
    expect(clock.at() - start).toBe(19_000);
  });

  it('time already spent between pushes counts: a slow push is not followed by a further wait', async () => {
    const clock = fakeClock();
    const gate = reconcileGate('postmark', { rate: 10 }, clock);
    const start = clock.at();
    await gate.run(async () => clock.wait(300));
    await gate.run(async () => undefined);
    expect(clock.at() - start).toBe(300);
  });
});

/** The worker's shared row, in memory: what each provider's pause says, every read and write counted. */
function pauseRow(initial: Partial<Record<SyncProviderName, number>> = {}) {
  const until = new Map(Object.entries(initial) as Array<[SyncProviderName, number]>);
  const store: PauseStore & { reads: number; writes: Array<[SyncProviderName, number]> } = {
    reads: 0,
    writes: [],
    async pausedUntil(provider) {
      store.reads++;
      return until.get(provider);
    },
    async pause(provider, untilMs) {
      store.writes.push([provider, untilMs]);
      if (untilMs > (until.get(provider) ?? 0)) until.set(provider, untilMs);
    },
  };
  return store;
}

describe('reconcileGate and the shared 429 pause', () => {
  it('calls nothing until a pause in the row has ended, and says so once', async () => {
    const clock = fakeClock();
    const row = pauseRow({ sendgrid: clock.at() + 4_000 });
    const told: number[] = [];
    const shared = new SharedPauses(row, { maxWaitMs: 60_000, onWait: (_, until) => told.push(until) });
    const gate = reconcileGate('sendgrid', { rate: 10 }, clock, shared);
    const start = clock.at();
    const calledAt: number[] = [];
    for (let i = 0; i < 3; i++) await gate.run(async () => calledAt.push(clock.at() - start));
    expect(calledAt).toEqual([4_000, 4_100, 4_200]);
    expect(told).toEqual([start + 4_000]);
  });

  it('reads the row at most once a second, however many calls', async () => {
    const clock = fakeClock();
    const row = pauseRow();
    const gate = reconcileGate('postmark', { rate: 10 }, clock, new SharedPauses(row, { maxWaitMs: 60_000 }));
    for (let i = 0; i < 31; i++) await gate.run(async () => undefined);
    // 31 calls over 3 s, each checked before its slot: reads at 0, 1 and 2 s (the last check at 2.9 s).
    expect(clock.at() - 1_000_000).toBe(3_000);
    expect(row.reads).toBe(3);
    // A list page checks the pause the same way: one read at 3 s, and nothing more within that second.
    await gate.waitOutPause();
    await gate.waitOutPause();
    expect(row.reads).toBe(4);
  });

  it('a pause a 429 that another worker wrote while it ran holds its next call', async () => {
    const clock = fakeClock();
    const row = pauseRow();
    const gate = reconcileGate('mailgun', { rate: 10 }, clock, new SharedPauses(row, { maxWaitMs: 60_000 }));
    await gate.run(async () => undefined);
    await row.pause('mailgun', clock.at() + 5_000);
    const calledAt: number[] = [];
    for (let i = 0; i < 12; i++) await gate.run(async () => calledAt.push(clock.at()));
    // Seen at the next read (a second after the first): nothing ran inside the pause.
    expect(calledAt.filter((at) => at > 1_000_000 + 1_000 && at < 1_000_000 + 5_000)).toEqual([]);
  });

  it('a pause longer than it waits for ends the run without a call; a row past any 429 is ignored', async () => {
    const clock = fakeClock();
    const long = reconcileGate(
      'resend',
      { rate: 1 },
      clock,
      new SharedPauses(pauseRow({ resend: clock.at() + 10 * 60_000 }), { maxWaitMs: 5 * 60_000 }),
    );
    let called = false;
    await expect(long.run(async () => (called = true))).rejects.toBeInstanceOf(SyncRateLimitedError);
    expect(called).toBe(false);
    const bogus = reconcileGate(
      'resend',
      { rate: 1 },
      clock,
      new SharedPauses(pauseRow({ resend: clock.at() + MAX_RATE_LIMIT_PAUSE_MS + 60_000 }), { maxWaitMs: Infinity }),
    );
    const start = clock.at();
    await bogus.run(async () => undefined);
    expect(clock.at()).toBe(start);
  });

  it('a 429 a call ends with, and one the adapter waits out, go into the row', async () => {
    const clock = fakeClock();
    const row = pauseRow();
    const shared = new SharedPauses(row, { maxWaitMs: 60_000 });
    const gate = reconcileGate('ses', { rate: 5 }, clock, shared);
    const limited = new SyncRateLimitedError('ses', clock.at() + 2_000);
    await expect(
      gate.run(async () => {
        throw limited;
      }),
    ).rejects.toBe(limited);
    shared.heard(new SyncRateLimitedError('sendgrid', clock.at() + 3_000));
    await shared.settled();
    expect(row.writes).toEqual([
      ['ses', clock.at() + 2_000],
      ['sendgrid', clock.at() + 3_000],
    ]);
  });
});
