import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { consumeMessage, parseQueuedEvent } from '../../../lambdas/core/pipeline/consume.js';
import { resendDelayMs, sweepPending, type SweeperDeps } from '../../../lambdas/core/pipeline/sweep.js';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { SWEEPER } from '../../../lib/definitions.js';
import { event, MemoryInbox, MemoryQueue } from './fakes.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('consumer', () => {
  it('applies, then marks the row applied', async () => {
    const inbox = new MemoryInbox();
    await inbox.admit(event(), 0);
    const applied: string[] = [];
    const counters = new MemoryCounters();
    const { raw: _raw, ...queued } = event();
    await consumeMessage(
      {
        inbox,
        suppressions: { apply: async (e) => (applied.push(e.eventId), { changed: true, effect: 'suppressed', becameSuppressed: true }) },
        now: () => 5,
        log: silent,
        counters,
      },
      JSON.stringify({ pk: 'fake#e1', event: queued }),
    );
    expect(applied).toEqual(['e1']);
    expect(inbox.rows.get('fake#e1')!.status).toBe('applied');
    expect(counters.totals.get('AddressesSuppressed{provider=fake}')).toBe(1);
  });

  it('does not mark the row applied when applying fails', async () => {
    const inbox = new MemoryInbox();
    await inbox.admit(event(), 0);
    const { raw: _raw, ...queued } = event();
    await expect(
      consumeMessage(
        { inbox, suppressions: { apply: async () => { throw new Error('conflict'); } }, now: () => 5, log: silent, counters: new MemoryCounters() },
        JSON.stringify({ pk: 'fake#e1', event: queued }),
      ),
    ).rejects.toThrow('conflict');
    expect(inbox.rows.get('fake#e1')!.status).toBe('pending');
  });

  it.each([
    ['not JSON', 'nope'],
    ['no event', '{"pk":"x"}'],
    ['an ignored event', JSON.stringify({ pk: 'x', event: { ...event(), kind: 'ignored' } })],
    ['an unknown kind', JSON.stringify({ pk: 'x', event: { ...event(), kind: 'resubscribe' } })],
    ['a string timestamp', JSON.stringify({ pk: 'x', event: { ...event(), occurredAt: '2024' } })],
  ])('rejects a poison message: %s', (_what, body) => {
    expect(() => parseQueuedEvent(body)).toThrow(MalformedRequestError);
  });
});

describe('sweeper', () => {
  const MIN = 60_000;
  const HOUR = 60 * MIN;
  function sweeper(inbox: MemoryInbox, queue: MemoryQueue, clock: { now: number }, overrides: Partial<SweeperDeps> = {}) {
    const counters = new MemoryCounters();
    const deps: SweeperDeps = {
      inbox,
      queue,
      now: () => clock.now,
      log: silent,
      counters,
      resendAfterMs: 5 * MIN,
      maxResendIntervalMs: 24 * HOUR,
      maxResends: 10,
      maxRows: 100,
      ...overrides,
    };
    return { run: () => sweepPending(deps), counters };
  }

  it('re-sends only unapplied rows whose time has come', async () => {
    const inbox = new MemoryInbox(5 * MIN);
    const queue = new MemoryQueue();
    await inbox.admit(event({ eventId: 'old' }), 0);
    await inbox.admit(event({ eventId: 'new' }), 4 * MIN);
    await inbox.admit(event({ eventId: 'done' }), 0);
    await inbox.markApplied('fake#done');
    const { run, counters } = sweeper(inbox, queue, { now: 6 * MIN });
    expect(await run()).toEqual({ resent: 1, gaveUp: 0 });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#old']);
    expect(queue.sent[0]).toEqual({ pk: 'fake#old', event: expect.not.objectContaining({ raw: expect.anything() }) });
    expect(inbox.rows.get('fake#old')).toMatchObject({ status: 'pending', resends: 1 });
    expect(counters.totals.get('EventsResent{provider=fake}')).toBe(1);
  });

  it('doubles the wait after each re-send, up to the cap, so a slow consumer is not flooded', async () => {
    const inbox = new MemoryInbox(5 * MIN);
    const queue = new MemoryQueue();
    await inbox.admit(event(), 0);
    const clock = { now: 0 };
    const { run } = sweeper(inbox, queue, clock, { maxResendIntervalMs: 40 * MIN });
    const sentAt: number[] = [];
    // Walk the clock minute by minute for 3 hours; the row is never applied.
    for (clock.now = 0; clock.now <= 3 * HOUR; clock.now += MIN) {
      const before = queue.sent.length;
      await run();
      if (queue.sent.length > before) sentAt.push(clock.now / MIN);
    }
    // 5 min after the put, then +10, +20, +40, and +40 from there on (the cap).
    expect(sentAt).toEqual([5, 15, 35, 75, 115, 155]);
  });

  it('a row applied between two re-sends is never re-sent again', async () => {
    const inbox = new MemoryInbox(5 * MIN);
    const queue = new MemoryQueue();
    await inbox.admit(event(), 0);
    const clock = { now: 5 * MIN };
    const { run } = sweeper(inbox, queue, clock);
    await run();
    await inbox.markApplied('fake#e1');
    clock.now = 10 * HOUR;
    expect(await run()).toEqual({ resent: 0, gaveUp: 0 });
    expect(queue.sent).toHaveLength(1);
  });

  it('gives up after maxResends: the row leaves the index, loudly, and is never re-sent again', async () => {
    const inbox = new MemoryInbox(1);
    const queue = new MemoryQueue();
    await inbox.admit(event(), 0);
    const errors: string[] = [];
    const clock = { now: 0 };
    const { run, counters } = sweeper(inbox, queue, clock, {
      resendAfterMs: 1,
      maxResends: 3,
      log: { ...silent, error: (message: string) => void errors.push(message) },
    });
    const results = [];
    for (let i = 0; i < 6; i++) {
      clock.now += HOUR;
      results.push(await run());
    }
    expect(results).toEqual([
      { resent: 1, gaveUp: 0 },
      { resent: 1, gaveUp: 0 },
      { resent: 1, gaveUp: 0 },
      { resent: 0, gaveUp: 1 },
      { resent: 0, gaveUp: 0 },
      { resent: 0, gaveUp: 0 },
    ]);
    expect(queue.sent).toHaveLength(3);
    expect(inbox.rows.get('fake#e1')).toMatchObject({ status: 'pending', resends: 3, abandoned: true });
    expect(errors).toHaveLength(1);
    expect(counters.totals.get('EventsAbandoned{provider=fake}')).toBe(1);
  });

  it('leaves rows due when the queue is down, so the next run retries them', async () => {
    const inbox = new MemoryInbox(1);
    const queue = new MemoryQueue();
    queue.failNext = 1;
    await inbox.admit(event(), 0);
    const { run } = sweeper(inbox, queue, { now: 10_000 });
    await expect(run()).rejects.toThrow();
    expect(inbox.rows.get('fake#e1')).toMatchObject({ status: 'pending', resends: 0 });
    expect(await run()).toEqual({ resent: 1, gaveUp: 0 });
  });

  it('with the shipped defaults: the 10th re-send about 2.8 days after the put, given up a day later (as documented)', async () => {
    const inbox = new MemoryInbox(SWEEPER.resendAfterSeconds * 1000);
    const queue = new MemoryQueue();
    await inbox.admit(event(), 0);
    const clock = { now: 0 };
    const { run } = sweeper(inbox, queue, clock, {
      resendAfterMs: SWEEPER.resendAfterSeconds * 1000,
      maxResendIntervalMs: SWEEPER.maxResendIntervalSeconds * 1000,
      maxResends: SWEEPER.maxResends,
    });
    const resentAt: number[] = [];
    let gaveUpAt: number | undefined;
    for (clock.now = 0; clock.now <= 5 * 24 * HOUR && gaveUpAt === undefined; clock.now += MIN) {
      const result = await run();
      if (result.resent) resentAt.push(clock.now / MIN);
      if (result.gaveUp) gaveUpAt = clock.now / MIN;
    }
    expect(resentAt).toHaveLength(10);
    expect(resentAt.at(-1)).toBe(3995); // 2.77 days
    expect(gaveUpAt).toBe(3995 + 24 * 60);
  });

  it('the wait is resendAfter × 2^resends, capped', () => {
    const deps = { resendAfterMs: 5 * MIN, maxResendIntervalMs: 24 * HOUR };
    expect([0, 1, 2, 3, 8, 9, 20].map((n) => resendDelayMs(deps, n) / MIN)).toEqual([5, 10, 20, 40, 1280, 1440, 1440]);
  });
});
