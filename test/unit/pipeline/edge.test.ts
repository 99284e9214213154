import { describe, expect, it } from 'vitest';
import { edgeWith, event, request } from './fakes.js';

describe('WebhookEdge', () => {
  it('enqueues every actionable event, then stores it, and acknowledges ignored ones', async () => {
    const { edge, inbox, queue } = edgeWith();
    const events = [
      event({ eventId: 'a' }),
      event({ eventId: 'b', kind: 'ignored', ignoredReason: 'open' }),
      event({ eventId: 'c' }),
    ];
    const response = await edge.receive('fake', request({ events }));
    expect(response).toEqual({
      status: 200,
      body: { ok: true, received: 3, admitted: 2, duplicates: 0, ignored: 1, ignoredReasons: { open: 1 } },
    });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#a', 'fake#c']);
    expect(queue.sent[0]!.event).not.toHaveProperty('raw');
    // Both puts came after both messages were on the queue: every stored row was already sent.
    expect(inbox.storeCalls).toEqual([
      { pk: 'fake#a', queuedBefore: 2 },
      { pk: 'fake#c', queuedBefore: 2 },
    ]);
    expect([...inbox.rows.keys()]).toEqual(['fake#a', 'fake#c']);
  });

  it('a duplicate is sent again (one extra message the idempotent consumer absorbs) and counted as a duplicate', async () => {
    const { edge, inbox, queue } = edgeWith();
    expect((await edge.receive('fake', request({ events: [event()] }))).status).toBe(200);
    const retry = await edge.receive('fake', request({ events: [event()] }));
    expect(retry).toMatchObject({ status: 200, body: { admitted: 0, duplicates: 1 } });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#e1', 'fake#e1']);
    expect(inbox.rows.size).toBe(1);
  });

  it('the send fails: 503 and nothing is stored, so the retry sends and stores it', async () => {
    const { edge, inbox, queue } = edgeWith();
    queue.failNext = 1;
    expect(await edge.receive('fake', request({ events: [event()] }))).toEqual({
      status: 503,
      body: { error: 'transient_failure' },
    });
    expect(inbox.rows.size).toBe(0);
    expect(inbox.storeCalls).toEqual([]);
    const retry = await edge.receive('fake', request({ events: [event()] }));
    expect(retry).toMatchObject({ status: 200, body: { admitted: 1, duplicates: 0 } });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#e1']);
    expect(inbox.rows.has('fake#e1')).toBe(true);
  });

  it('the send succeeds and a put fails: 503, so the provider retries; the message already on the queue carries the event', async () => {
    const { edge, inbox, queue } = edgeWith();
    inbox.failStoreFor.add('b');
    const response = await edge.receive(
      'fake',
      request({ events: [event({ eventId: 'a' }), event({ eventId: 'b' })] }),
    );
    expect(response.status).toBe(503);
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#a', 'fake#b']);
    expect(queue.sent[1]!.event).toMatchObject({ eventId: 'b', recipient: 'a@example.com', kind: 'hard_bounce' });
    expect(inbox.rows.has('fake#b')).toBe(false);
    inbox.failStoreFor.clear();
    const retry = await edge.receive('fake', request({ events: [event({ eventId: 'a' }), event({ eventId: 'b' })] }));
    expect(retry).toMatchObject({ status: 200, body: { admitted: 1, duplicates: 1 } });
    expect(inbox.rows.has('fake#b')).toBe(true);
  });

  it('events sharing one raw payload (a multi-recipient notification) are stored once, under the first event', async () => {
    const { edge, inbox, queue } = edgeWith();
    const raw = '{"one":"notification"}';
    const events = [
      event({ eventId: 'm:x', recipient: 'x@example.com', raw }),
      event({ eventId: 'm:y', recipient: 'y@example.com', raw }),
    ];
    const response = await edge.receive('fake', request({ events }));
    expect(response).toMatchObject({ status: 200, body: { admitted: 2, duplicates: 0 } });
    expect([...inbox.rows.keys()]).toEqual(['fake#m:x']);
    expect(inbox.rows.get('fake#m:x')!.events.map((e) => e.recipient)).toEqual(['x@example.com', 'y@example.com']);
    expect(queue.sent).toEqual([
      { pk: 'fake#m:x', event: expect.objectContaining({ eventId: 'm:x', recipient: 'x@example.com' }) },
      { pk: 'fake#m:x', event: expect.objectContaining({ eventId: 'm:y', recipient: 'y@example.com' }) },
    ]);
    expect(await edge.receive('fake', request({ events }))).toMatchObject({
      status: 200,
      body: { admitted: 0, duplicates: 2 },
    });
  });

  it('an event too large to store is answered with 413 and neither sent nor stored; its siblings are', async () => {
    const { edge, inbox, queue } = edgeWith();
    inbox.refuseFor.add('huge');
    const response = await edge.receive(
      'fake',
      request({ events: [event({ eventId: 'a' }), event({ eventId: 'huge' })] }),
    );
    expect(response).toEqual({ status: 413, body: { error: 'payload_too_large' } });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#a']);
    expect([...inbox.rows.keys()]).toEqual(['fake#a']);
  });

  it('flushes its counters exactly once per request, whatever the answer', async () => {
    const { edge, counters } = edgeWith();
    await edge.receive('fake', request({ events: [event({ eventId: 'a' }), event({ eventId: 'c' })] }));
    await edge.receive('fake', request({ events: [event()] }, 'wrong'));
    expect(counters.flushes).toBe(2);
    expect(counters.totals.get('EventsAdmitted{provider=fake}')).toBe(2);
  });

  it('answers 413 for an oversized body before the provider sees it', async () => {
    const { edge, created } = edgeWith();
    const response = await edge.receive('fake', { body: Buffer.alloc(1025), headers: {} });
    expect(response).toEqual({ status: 413, body: { error: 'payload_too_large' } });
    expect(created.count).toBe(0);
  });

  it('an unknown provider and an unconfigured provider are both 404, and nothing is written', async () => {
    const { edge, inbox, setCredentials } = edgeWith();
    expect((await edge.receive('nope', request({ events: [event()] }))).status).toBe(404);
    setCredentials([]);
    expect((await edge.receive('fake', request({ events: [event()] }))).status).toBe(404);
    expect(inbox.rows.size).toBe(0);
  });

  it('an authentication failure is a 4xx with a code and writes nothing', async () => {
    const { edge, inbox, queue } = edgeWith();
    const response = await edge.receive('fake', request({ events: [event()] }, 'wrong'));
    expect(response).toEqual({ status: 401, body: { error: 'authentication_failed' } });
    expect(inbox.rows.size).toBe(0);
    expect(queue.sent).toHaveLength(0);
  });

  it('an unexpected error is a 500 so the provider retries', async () => {
    const { edge } = edgeWith();
    expect((await edge.receive('fake', request({ crash: true }))).status).toBe(500);
  });

  it('a credentials lookup failure is a 503, not a 404', async () => {
    const { edge } = edgeWith({
      secrets: {
        credentials: async () => {
          throw new Error('secrets manager down');
        },
      },
    });
    expect((await edge.receive('fake', request({ events: [event()] }))).status).toBe(503);
  });

  it('builds a provider once per credentials list and rebuilds it on rotation', async () => {
    const { edge, created, setCredentials } = edgeWith();
    await edge.receive('fake', request({ events: [event({ eventId: '1' })] }));
    await edge.receive('fake', request({ events: [event({ eventId: '2' })] }));
    expect(created.count).toBe(1);
    setCredentials(['k2', 'k1']);
    expect((await edge.receive('fake', request({ events: [event({ eventId: '3' })] }, 'k2'))).status).toBe(200);
    expect(created.count).toBe(2);
    expect(created.credentials[1]).toEqual(['k2', 'k1']);
  });

  it('confirms an SNS subscription once, through the confirmer, and retries after a failure', async () => {
    const { edge, confirmer } = edgeWith();
    const control = {
      type: 'SubscriptionConfirmation',
      topicArn: 'arn:aws:sns:us-east-1:123456789012:t',
      token: 'tok',
      messageId: 'm1',
    };
    confirmer.fail = true;
    expect((await edge.receive('fake', request({ control }))).status).toBe(503);
    confirmer.fail = false;
    expect((await edge.receive('fake', request({ control }))).status).toBe(200);
    expect((await edge.receive('fake', request({ control }))).body).toMatchObject({ alreadyConfirmed: true });
    expect(confirmer.calls).toEqual([[control.topicArn, 'tok']]);
  });

  it('takes no action on an UnsubscribeConfirmation but counts it', async () => {
    const { edge, confirmer, counters } = edgeWith();
    const control = {
      type: 'UnsubscribeConfirmation',
      topicArn: 'arn:aws:sns:us-east-1:123456789012:t',
      messageId: 'm2',
    };
    expect((await edge.receive('fake', request({ control }))).status).toBe(200);
    expect(confirmer.calls).toHaveLength(0);
    expect(counters.totals.get('UnsubscribeConfirmations{provider=fake}')).toBe(1);
  });
});
