/**
 * The sweep (core/sync/sweep.ts, lease.ts) over an in-memory outbox and queue with a simulated clock:
 * one message per pending item over a backlog that takes far longer than any fixed lease to drain; no
 * messages while the queue already holds an interval's work; the deadline and the write bound.
 */
import { describe, expect, it } from 'vitest';
import { DrainMeter, LEASE, leased, leaseUntil, sendBudget } from '../../../lambdas/core/sync/lease.js';
import { type SyncMessage, SyncSendError } from '../../../lambdas/core/sync/message.js';
import { runSweep, type SweepPorts, type SweptItem } from '../../../lambdas/core/sync/sweep.js';

const PAGE = 100;

/** An outbox (email → due) and a FIFO queue the simulated workers drain at `rate` messages a second. */
function world(items: number, options: { pageDelayMs?: number } = {}) {
  let clock = 0;
  const index = new Map<string, number>();
  for (let i = 0; i < items; i++) index.set(`u${i}@x`, 0);
  const queue: string[] = [];
  const sends = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const ports: SweepPorts = {
    now: () => clock,
    depth: async () => ({ visible: queue.length, total: queue.length }),
    send: async (messages: readonly SyncMessage[]) => {
      for (const m of messages) {
        queue.push(m.email);
        sends.set(m.email, (sends.get(m.email) ?? 0) + 1);
      }
    },
    postpone: async (email, from, to) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Promise.resolve();
      if (index.get(email) === from) index.set(email, to);
      inFlight--;
    },
    pending: async (dueBefore, onPage, o) => {
      const due = [...index].filter(([, d]) => d <= dueBefore).sort((a, b) => a[1] - b[1]);
      for (let i = 0; i < due.length; i += PAGE) {
        if (o.deadline !== undefined && clock >= o.deadline) return { complete: false };
        const page: SweptItem[] = due.slice(i, i + PAGE).map(([email, d]) => ({ email, due: d, change: 1, sync: {} }));
        clock += options.pageDelayMs ?? 0;
        if ((await onPage(page)) === 'stop') return { complete: false };
      }
      return { complete: true };
    },
  };
  return {
    ports,
    index,
    queue,
    sends,
    get maxInFlight() {
      return maxInFlight;
    },
    get clock() {
      return clock;
    },
    set clock(t: number) {
      clock = t;
    },
    /** One simulated second of the workers: `rate` messages pushed, their markers cleared. */
    drain(rate: number) {
      for (const email of queue.splice(0, rate)) index.delete(email);
    },
  };
}

describe('the sweep over a long backlog', () => {
  it('20,000 items drained at 50/s (over 6 minutes): every item is sent exactly once, though the configured ceiling is 20x faster', async () => {
    const w = world(20_000);
    const meter = new DrainMeter(1000);
    for (let t = 0; w.index.size > 0 && t < 3_600; t++) {
      w.clock = t * 1000;
      if (t % 60 === 0)
        await runSweep(w.ports, meter, ['sendgrid'], {
          dueBefore: w.clock,
          deadline: w.clock + 40_000,
          intervalMs: 60_000,
          writeConcurrency: 16,
          random: () => 0,
        });
      w.drain(50);
    }
    expect(w.index.size).toBe(0);
    expect(w.sends.size).toBe(20_000);
    expect(Math.max(...w.sends.values())).toBe(1);
    // It learned the real rate from the queue.
    expect(meter.perSecond).toBeLessThanOrEqual(60);
  });

  it('a sweep that reads its pages over 30 s leases each page from when it sent it, not from when the sweep began', async () => {
    // Two pages of 100, the second read 15 s after the first: its leases start 15 s later too.
    const w = world(200, { pageDelayMs: 15_000 });
    const meter = new DrainMeter(1000);
    const result = await runSweep(w.ports, meter, ['sendgrid'], {
      dueBefore: 0,
      deadline: 40_000,
      intervalMs: 60_000,
      writeConcurrency: 16,
      random: () => 0,
    });
    expect(result).toMatchObject({ sent: 200, complete: true });
    const leases = [...w.index.values()];
    expect(leases[0]).toBe(leaseUntil(15_000, 1, 1000));
    expect(leases[199]).toBe(leaseUntil(30_000, 200, 1000));
  });

  it('a lease outlives the backlog ahead of it: twice the measured drain time, at least the minimum, at most the maximum', () => {
    expect(leaseUntil(1_000, 30_000, 50)).toBe(leased(1_000 + 2 * 600_000 + LEASE.graceMs));
    expect(leaseUntil(1_000, 0, 50)).toBe(leased(1_000 + LEASE.minMs));
    expect(leaseUntil(1_000, 10_000_000, 1)).toBe(leased(1_000 + LEASE.maxMs));
    expect(leaseUntil(0, 100, 0)).toBeGreaterThan(leaseUntil(0, 100, 1));
  });

  it('the meter: a draining queue gives the rate; a queue that ran dry lets it double, never past the ceiling', () => {
    const meter = new DrainMeter(100);
    expect(meter.observe(0, 0)).toBe(100);
    meter.sent(6000);
    expect(meter.observe(60_000, 4800)).toBe(20);
    expect(meter.observe(120_000, 0)).toBe(80);
    expect(meter.observe(180_000, 0)).toBe(100);
    // Workers that did nothing between two sweeps: the floor, not zero.
    const idle = new DrainMeter(100, 5);
    idle.observe(0, 50);
    expect(idle.observe(60_000, 50)).toBe(5);
    expect(sendBudget(idle.perSecond, 60_000, 50)).toBe(250);
  });

  it('sends no more than one interval of work: nothing while the queue holds that much, and what fell due meanwhile is leased again', async () => {
    const w = world(50);
    w.queue.push(...Array.from({ length: 600 }, (_, i) => `other${i}@x`));
    const meter = new DrainMeter(10);
    w.clock = 1_000;
    const result = await runSweep(w.ports, meter, ['resend'], {
      dueBefore: 1_000,
      deadline: 41_000,
      intervalMs: 60_000,
      writeConcurrency: 4,
    });
    expect(sendBudget(10, 60_000, 600)).toBe(0);
    expect(result).toEqual({ sent: 0, renewed: 50, complete: true });
    expect(w.sends.size).toBe(0);
    // Never sent (a whole-millisecond marker): held as long, but still a whole millisecond (below).
    for (const due of w.index.values()) expect(due).toBe(Math.floor(leaseUntil(1_000, 600, 10)));
  });

  it('an item leased again without a message keeps what its marker said: never sent, its first message asks nothing', async () => {
    // Two items fall due while the queue is deep: one marked by a change or the backfill (a whole ms,
    // never sent), one a lease that lapsed (sent before). The deep sweep sends neither; once the queue
    // has drained, the next one sends both, and only the one sent before carries `recheck`.
    const w = world(0);
    w.index.set('never@x', 500);
    w.index.set('sent@x', leased(400));
    w.queue.push(...Array.from({ length: 600 }, (_, i) => `other${i}@x`));
    const meter = new DrainMeter(10);
    const sent: SyncMessage[] = [];
    const send = w.ports.send;
    w.ports.send = async (messages) => {
      sent.push(...messages);
      return send(messages);
    };
    const sweep = (at: number) =>
      runSweep(w.ports, meter, ['resend'], {
        dueBefore: at,
        deadline: at + 40_000,
        intervalMs: 60_000,
        writeConcurrency: 4,
      });
    w.clock = 1_000;
    expect(await sweep(1_000)).toMatchObject({ sent: 0, renewed: 2 });
    expect(Number.isInteger(w.index.get('never@x'))).toBe(true);
    expect(Number.isInteger(w.index.get('sent@x'))).toBe(false);
    w.queue.length = 0;
    w.clock = LEASE.maxMs;
    expect(await sweep(LEASE.maxMs)).toMatchObject({ sent: 2 });
    expect(sent.find((m) => m.email === 'never@x')?.recheck).toBeUndefined();
    expect(sent.find((m) => m.email === 'sent@x')?.recheck).toBe(true);
  });

  it('with room for part of the due items: sends that many, leaves the rest due for the next sweep', async () => {
    const w = world(500);
    const result = await runSweep(w.ports, new DrainMeter(2), ['resend'], {
      dueBefore: 0,
      deadline: 40_000,
      intervalMs: 60_000,
      writeConcurrency: 4,
    });
    expect(result).toMatchObject({ sent: 120, renewed: 0, complete: false });
    expect([...w.index.values()].filter((d) => d === 0)).toHaveLength(380);
  });

  it('a sweep stops at its deadline: no page after it, and what it did not read is left due', async () => {
    const w = world(1_000, { pageDelayMs: 10_000 });
    const result = await runSweep(w.ports, new DrainMeter(1000), ['ses'], {
      dueBefore: 0,
      deadline: 35_000,
      intervalMs: 60_000,
      writeConcurrency: 4,
    });
    expect(result.complete).toBe(false);
    expect(result.sent).toBe(400);
    expect([...w.index.values()].filter((d) => d === 0)).toHaveLength(600);
  });

  it('a send SQS takes only in part: the items it queued are leased, the refused ones stay due, and the next sweep sends only those', async () => {
    const w = world(30);
    const send = w.ports.send;
    let refuse = true;
    w.ports.send = async (messages) => {
      if (!refuse) return send(messages);
      refuse = false;
      // One entry of each SendMessageBatch of ten refused (SQS's `Failed`), the others queued.
      const unsent = messages.filter((_, i) => i % 10 === 3);
      await send(messages.filter((m) => !unsent.includes(m)));
      throw new SyncSendError(unsent, { cause: new Error('3 entries failed: InternalError') });
    };
    const options = { deadline: 40_000, intervalMs: 60_000, writeConcurrency: 4 };
    await expect(runSweep(w.ports, new DrainMeter(1000), ['ses'], { ...options, dueBefore: 0 })).rejects.toThrow(
      SyncSendError,
    );
    expect([...w.index].filter(([, due]) => due === 0).map(([email]) => email)).toEqual(['u3@x', 'u13@x', 'u23@x']);
    w.clock = 1_000;
    const second = await runSweep(w.ports, new DrainMeter(1000), ['ses'], { ...options, dueBefore: 1_000 });
    expect(second.sent).toBe(3);
    expect(w.sends.size).toBe(30);
    expect([...w.sends.values()].every((n) => n === 1)).toBe(true);
  });

  it('bounds its lease writes in flight', async () => {
    const w = world(1_000);
    await runSweep(w.ports, new DrainMeter(1000), ['ses'], {
      dueBefore: 0,
      deadline: 40_000,
      intervalMs: 60_000,
      writeConcurrency: 8,
    });
    expect(w.maxInFlight).toBe(8);
  });

  it('the start sweep (`all`) sends every due item whatever the depth', async () => {
    const w = world(300);
    w.queue.push(...Array.from({ length: 10_000 }, (_, i) => `other${i}@x`));
    const result = await runSweep(w.ports, new DrainMeter(1), ['ses', 'resend'], {
      dueBefore: 0,
      deadline: 40_000,
      intervalMs: 60_000,
      writeConcurrency: 8,
      all: true,
    });
    expect(result).toMatchObject({ sent: 600, renewed: 0, complete: true });
  });
});
