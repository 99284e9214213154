import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { consumeMessage, parseQueuedEvent } from '../../../lambdas/core/pipeline/consume.js';
import { sweepPending } from '../../../lambdas/core/pipeline/sweep.js';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
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
  it('re-sends only rows pending for longer than the threshold, and marks them enqueued', async () => {
    const inbox = new MemoryInbox();
    const queue = new MemoryQueue();
    await inbox.admit(event({ eventId: 'old' }), 1_000);
    await inbox.admit(event({ eventId: 'new' }), 9_000);
    await inbox.admit(event({ eventId: 'done' }), 1_000);
    await inbox.markEnqueued('fake#done');
    const result = await sweepPending({ inbox, queue, now: () => 10_000, log: silent, pendingAfterMs: 5_000, maxRows: 100 });
    expect(result).toEqual({ resent: 1 });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#old']);
    expect(inbox.rows.get('fake#old')!.status).toBe('enqueued');
  });

  it('leaves rows pending when the queue is down, so the next run retries', async () => {
    const inbox = new MemoryInbox();
    const queue = new MemoryQueue();
    queue.failNext = 1;
    await inbox.admit(event(), 0);
    const deps = { inbox, queue, now: () => 10_000, log: silent, pendingAfterMs: 1, maxRows: 10 };
    await expect(sweepPending(deps)).rejects.toThrow();
    expect(inbox.rows.get('fake#e1')!.status).toBe('pending');
    expect(await sweepPending(deps)).toEqual({ resent: 1 });
  });
});
