/**
 * The gate's line (lambdas/adapters/sync-gate.ts): a call handed back keeps the slot reserved for it
 * (its `turn`), so it runs ahead of calls that came later; no call, turn or not, runs closer than one
 * interval to the one before; slots are reserved at most `bookingHorizonMs` ahead, and past that the
 * call is handed back with no slot (SyncProviderBacklogError) at times one interval apart.
 */
import { describe, expect, it, vi } from 'vitest';
import { ProviderGate } from '../../../lambdas/adapters/sync-gate.js';
import type { CallTicket } from '../../../lambdas/core/sync/ask-first.js';
import { SyncProviderBacklogError, SyncProviderBusyError } from '../../../lambdas/core/sync/target.js';

/**
 * Resend-like: 1 call a second, one in flight, slots reserved up to 10 s ahead. No hold (maxHoldMs 0),
 * so every call either runs at once or is handed back, and the clock moves only when a test moves it.
 */
function gate(options: { bookingHorizonMs?: number } = { bookingHorizonMs: 10_000 }) {
  const clock = { now: 0 };
  const holds: number[] = [];
  const g = new ProviderGate(
    'resend',
    { concurrency: 1, rate: 1 },
    {
      now: () => clock.now,
      wait: async (ms) => void holds.push(ms),
      maxHoldMs: 0,
      ...options,
    },
  );
  const ran: number[] = [];
  const run = (ticket?: CallTicket, urgent = false) =>
    g.run(
      async () => {
        ran.push(clock.now);
        return clock.now;
      },
      { ticket, urgent },
    );
  return { g, clock, holds, ran, run };
}

const turnOf = async (promise: Promise<unknown>): Promise<number> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SyncProviderBusyError);
  expect(error).not.toBeInstanceOf(SyncProviderBacklogError);
  return (error as SyncProviderBusyError).retryAtMs;
};

describe('the gate keeps a handed-back call its turn', () => {
  it('first come, first served: turns run at their time, ahead of a call that came later', async () => {
    const t = gate();
    await t.run(); // slot 0
    const turns = [await turnOf(t.run()), await turnOf(t.run()), await turnOf(t.run())];
    expect(turns).toEqual([1_000, 2_000, 3_000]);
    // A call arriving now is told the end of the line, after every turn handed out.
    expect(await turnOf(t.run())).toBe(4_000);
    // Each turn, when it comes back, runs at its own time without a new slot.
    for (const turn of turns) {
      t.clock.now = turn;
      await expect(t.run({ turnAtMs: turn })).resolves.toBe(turn);
    }
    expect(t.ran).toEqual([0, 1_000, 2_000, 3_000]);
  });

  it('a turn is used once; the message’s next call (the push after a lookup) follows one interval later, not at the back of the line', async () => {
    const t = gate();
    await t.run();
    const turn = await turnOf(t.run());
    for (let i = 0; i < 5; i++) await turnOf(t.run()); // the line now ends at 7 s
    t.clock.now = turn;
    const ticket: CallTicket = { turnAtMs: turn };
    await t.run(ticket);
    expect(ticket).toEqual({ started: true });
    // Sent round again instead, it would look up again at its next turn and never push.
    await expect(t.run(ticket)).resolves.toBe(turn);
    expect(t.holds).toEqual([1_000]);
    // A message not under way still joins the line.
    expect(await turnOf(t.run({}))).toBe(7_000);
  });

  it('a message’s next call that would need more than one interval past the hold joins the line', async () => {
    const t = gate();
    await t.run();
    const ticket: CallTicket = { started: true };
    await t.run(undefined, true); // an urgent call took the next slot (1 s)
    expect(await turnOf(t.run(ticket))).toBe(2_000);
  });

  it('turns that come back late together never add to the rate: one interval apart, the rest back to the line', async () => {
    const t = gate();
    await t.run();
    const turns = [await turnOf(t.run()), await turnOf(t.run()), await turnOf(t.run()), await turnOf(t.run())];
    // All four come back at once, 10 s late (a slow poll).
    t.clock.now = 14_000;
    const outcomes = await Promise.allSettled(turns.map((turn) => t.run({ turnAtMs: turn })));
    // One runs; the others would run closer than an interval to it, so they join the line, spaced.
    expect(t.ran.filter((at) => at >= 14_000)).toEqual([14_000]);
    const back = outcomes
      .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
      .map((o) => (o.reason as SyncProviderBusyError).retryAtMs);
    expect(back).toEqual([15_000, 16_000, 17_000]);
    expect(t.holds).toEqual([]);
  });

  it('a turn that comes back early is handed back with the same turn, reserving nothing more', async () => {
    const t = gate();
    await t.run();
    const first = await turnOf(t.run());
    const last = await turnOf(t.run());
    t.clock.now = 0;
    expect(await turnOf(t.run({ turnAtMs: last }))).toBe(last);
    // The line did not grow: the next call is told the slot after `last`.
    expect(await turnOf(t.run())).toBe(last + 1_000);
    expect(first).toBe(1_000);
  });

  it('a turn further ahead than the gate ever reserves is not one of its own: the line decides', async () => {
    const t = gate();
    await expect(t.run({ turnAtMs: 10 * 365 * 86_400_000 })).resolves.toBe(0);
  });

  it('without a turn, a call that came back is only a new call (the old behaviour, kept for messages sent before turns)', async () => {
    const t = gate();
    await t.run();
    await turnOf(t.run());
    t.clock.now = 1_000;
    // Its slot is reserved for the message that carries it: a ticketless call goes to the end.
    expect(await turnOf(t.run())).toBe(2_000);
  });
});

describe('past the booking horizon, the change waits in the outbox', () => {
  it('no slot is reserved past the horizon; the times handed out start a horizon before the line ends, one interval apart', async () => {
    const t = gate({ bookingHorizonMs: 10_000 });
    await t.run();
    const turns: number[] = [];
    for (let i = 0; i < 10; i++) turns.push(await turnOf(t.run()));
    expect(turns.at(-1)).toBe(10_000);
    const deferred: number[] = [];
    for (let i = 0; i < 5; i++) {
      const error = await t.run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SyncProviderBacklogError);
      deferred.push((error as SyncProviderBacklogError).retryAtMs);
    }
    // The line ends at 11 s; the first is due back when that lies within the horizon (1 s), then one interval apart.
    expect(deferred).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    // Nothing was reserved for them: once time has moved, the line has room again at its old end.
    t.clock.now = 1_000;
    expect(await turnOf(t.run())).toBe(11_000);
  });

  it('without a horizon every call handed back is reserved a slot', async () => {
    const t = gate({});
    await t.run();
    for (let i = 0; i < 50; i++) await turnOf(t.run());
    expect(await turnOf(t.run())).toBe(51_000);
  });
});

describe('a call that lets mail through again does not wait behind a backlog', () => {
  it('runs at the first spaced time within the hold, ahead of the line; the turn it lands on goes to the end', async () => {
    const t = gate();
    await t.run();
    const turns: number[] = [];
    for (let i = 0; i < 9; i++) turns.push(await turnOf(t.run()));
    // A suppression arriving now is told the end of the line...
    expect(await turnOf(t.run())).toBe(10_000);
    // ...a reactivation one second later runs at once,
    t.clock.now = 1_000;
    await expect(t.run(undefined, true)).resolves.toBe(1_000);
    // and the turn it took the place of is not run beside it (the rate is kept): it goes to the end.
    expect(await turnOf(t.run({ turnAtMs: 1_000 }))).toBe(11_000);
    expect(t.ran).toEqual([0, 1_000]);
  });

  it('never closer than one interval to the call before: held up to one interval past the hold, and a second one at the same moment waits in the line', async () => {
    const t = gate();
    await t.run();
    // Slot 1 s is one interval past the hold (0 here): the urgent call is held for it.
    await t.run(undefined, true);
    expect(t.holds).toEqual([1_000]);
    // A second urgent call now would need 2 s: past that bound, so it joins the line (whose next slot, 1 s,
    // the urgent call took: it is told 2 s, one interval after it).
    expect(await turnOf(t.run(undefined, true))).toBe(2_000);
  });
});

describe('calls in flight at once (concurrency above 1)', () => {
  it('calls that waited for a place in flight start one interval apart, not all at once when the provider answers a stalled pair', async () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const g = new ProviderGate(
        'sendgrid',
        { concurrency: 2, rate: 20 },
        { now: () => Date.now(), wait: (ms) => new Promise((r) => setTimeout(r, ms)), maxHoldMs: 1_000 },
      );
      const starts: number[] = [];
      const calls = Array.from({ length: 6 }, (_, i) =>
        g.run(async () => {
          starts.push(Date.now());
          // The first two stall for 300 ms and answer together; the rest answer at once.
          if (i < 2) await new Promise((r) => setTimeout(r, 300 - 50 * i));
        }),
      );
      await vi.advanceTimersByTimeAsync(5_000);
      await Promise.all(calls);
      const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
      // Reserved 50 ms apart, the four that waited for a place all started at 300 ms, the provider's rate four times over.
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
    } finally {
      vi.useRealTimers();
    }
  });
});
