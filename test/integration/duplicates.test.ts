/** At-least-once delivery in, exactly-once effect out: duplicates and concurrency on the real stack. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import { applyEvent } from '../../lambdas/core/suppression/index.js';
import { startTestStack, type TestStack } from './harness.js';

describe('duplicates and concurrency', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  it('50 concurrent identical deliveries: one inbox row, one applied effect, a 2xx for all 50', async () => {
    const email = 'dup@example.com';
    const request = stack.sign('ses', 'soft_bounce', email);
    const responses = await Promise.all(Array.from({ length: 50 }, () => stack.post('ses', request)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(responses.filter((r) => r.body.admitted === 1)).toHaveLength(1);
    expect(responses.filter((r) => r.body.duplicates === 1)).toHaveLength(49);

    await stack.drain();
    const rows = (await stack.inboxRows()).filter((row) => row.event.recipient === email);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('queued');
    const record = await stack.record(email);
    // One soft bounce counted, however many copies were enqueued.
    expect(Object.keys(record!.softBounces ?? {})).toHaveLength(1);
    expect(record!.status).toBe('active');
  });

  it('a retried delivery of an applied event is a duplicate: one extra message, absorbed without a write', async () => {
    const email = 'retry@example.com';
    const request = stack.sign('generic', 'unsubscribe', email);
    expect((await stack.post('generic', request)).body).toMatchObject({ admitted: 1 });
    await stack.drain();
    const applied = await stack.record(email);
    const retry = await stack.post('generic', request);
    expect(retry).toMatchObject({ status: 200, body: { admitted: 0, duplicates: 1 } });
    // Enqueue before store: the edge sends before it knows it is a duplicate.
    expect(await stack.queueDepth()).toMatchObject({ visible: 1 });
    expect(await stack.drain()).toBe(1);
    expect(await stack.record(email)).toEqual(applied);
  });

  it('50 concurrent events for one recipient give the same record as applying them in order', async () => {
    const email = 'contended@example.com';
    const base = Date.UTC(2026, 0, 1);
    const kinds = [
      'soft_bounce',
      'delivered',
      'soft_bounce',
      'complaint',
      'unsubscribe',
      'hard_bounce',
      'delivered',
    ] as const;
    const events: NormalizedEvent[] = Array.from({ length: 50 }, (_, i) => ({
      provider: 'generic',
      eventId: `contended-${i}`,
      recipient: email,
      kind: kinds[i % kinds.length]!,
      // Deliveries are dated before every soft bounce, so the one documented order-dependence (a
      // crossed soft-bounce limit stays crossed) cannot make "in order" ambiguous.
      occurredAt:
        kinds[i % kinds.length] === 'delivered' ? base + i * 1_000 : base + 3_600_000 + ((i * 7919) % 50) * 60_000,
      detail: {},
      raw: '{}',
    }));
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable);
    // The first event (a soft bounce) creates the record, so no delivery meets "no record" and is skipped
    // (write-policy.ts): the other 49 then race on one item.
    await store.apply(events[0]!);
    await Promise.all(events.slice(1).map((e) => store.apply(e)));

    let sequential: ReturnType<typeof applyEvent>['record'] | undefined;
    for (const e of events) sequential = applyEvent(sequential, e).record;
    // The sync outbox attributes count writes that moved the sync projection, which depends on the interleaving, like version.
    const {
      version,
      updatedAt,
      schemaVersion: _s,
      syncChange: _c,
      syncPending: _p,
      syncDue: _d,
      ...stored
    } = (await stack.record(email))!;
    expect(version).toBeGreaterThan(0);
    expect(stored).toEqual(sequential);
  });
});
