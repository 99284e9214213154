/**
 * The edge's edges: the body size cap at its exact value, counters without a flush, the credentials
 * fingerprint behind provider rebuilds, which prepare failures abort the whole request, and the send
 * that is skipped when there is nothing to send.
 */
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError, TransientError } from '../../../lambdas/core/errors.js';
import type { QueuedEvent } from '../../../lambdas/core/pipeline/ports.js';
import { edgeWith, event, PrepareFailingInbox, request, StoreBugError } from './fakes.js';

describe('edge: the body size cap', () => {
  it('accepts a body of exactly maxBodyBytes and refuses one byte more', async () => {
    const body = request({ events: [event()] });
    const atCap = edgeWith({ maxBodyBytes: body.body.length });
    expect((await atCap.edge.receive('fake', body)).status).toBe(200);
    const underCap = edgeWith({ maxBodyBytes: body.body.length - 1 });
    expect(await underCap.edge.receive('fake', body)).toEqual({ status: 413, body: { error: 'payload_too_large' } });
    expect(underCap.created.count).toBe(0);
  });
});

describe('edge: counters', () => {
  it('works with counters that have no flush (flush is optional)', async () => {
    const counted: string[] = [];
    const { edge } = edgeWith({ counters: { count: (name, value) => void counted.push(`${name}=${value}`) } });
    expect(await edge.receive('fake', request({ events: [event()] }))).toEqual({
      status: 200,
      body: { ok: true, received: 1, admitted: 1, duplicates: 0, ignored: 0 },
    });
    expect(counted).toEqual(['EventsAdmitted=1', 'EventsDuplicate=0', 'EventsIgnored=0']);
  });
});

describe('edge: the credentials fingerprint', () => {
  it('tells a list of two keys from one key made of both (no rebuild would keep the old credentials)', async () => {
    const { edge, created, setCredentials } = edgeWith();
    setCredentials(['ab']);
    expect((await edge.receive('fake', request({ events: [event({ eventId: '1' })] }, 'ab'))).status).toBe(200);
    setCredentials(['a', 'b']);
    expect((await edge.receive('fake', request({ events: [event({ eventId: '2' })] }, 'a'))).status).toBe(200);
    expect(created.credentials).toEqual([['ab'], ['a', 'b']]);
  });
});

describe('edge: a prepare failure', () => {
  const siblings = () => request({ events: [event({ eventId: 'a' }), event({ eventId: 'bad' })] });

  it('a 4xx WebhookError refuses only its event: the siblings are sent and stored', async () => {
    const inbox = new PrepareFailingInbox(new PayloadTooLargeError('too large to store'));
    const { edge, queue } = edgeWith({ inbox });
    expect(await edge.receive('fake', siblings())).toEqual({ status: 413, body: { error: 'payload_too_large' } });
    expect(queue.sent.map((m) => m.pk)).toEqual(['fake#a']);
    expect([...inbox.rows.keys()]).toEqual(['fake#a']);
  });

  it('anything else aborts the whole request before anything is sent or stored', async () => {
    const failures: Array<[unknown, { status: number; body: Record<string, unknown> }]> = [
      [new TypeError('encoder bug'), { status: 500, body: { error: 'internal_error' } }],
      [new TransientError('codec unavailable'), { status: 503, body: { error: 'transient_failure' } }],
      [new StoreBugError('row encoder broke'), { status: 500, body: { error: 'store_bug' } }],
    ];
    for (const [failure, answer] of failures) {
      const inbox = new PrepareFailingInbox(failure);
      const { edge, queue } = edgeWith({ inbox });
      expect(await edge.receive('fake', siblings())).toEqual(answer);
      expect(queue.sent).toEqual([]);
      expect(inbox.storeCalls).toEqual([]);
    }
  });
});

describe('edge: nothing to send', () => {
  function countingQueue() {
    const calls: QueuedEvent[][] = [];
    return {
      calls,
      queue: {
        async send(messages: readonly QueuedEvent[]) {
          calls.push([...messages]);
          throw new TransientError('queue down');
        },
      },
    };
  }

  it('a request of ignored events only never calls the queue, so a queue outage cannot fail it', async () => {
    const { calls, queue } = countingQueue();
    const { edge } = edgeWith({ queue });
    const events = [event({ eventId: 'o', kind: 'ignored', ignoredReason: 'open' })];
    expect(await edge.receive('fake', request({ events }))).toEqual({
      status: 200,
      body: { ok: true, received: 1, admitted: 0, duplicates: 0, ignored: 1, ignoredReasons: { open: 1 } },
    });
    expect(calls).toEqual([]);
  });

  it('a request whose only event is refused is answered with its 4xx, not with the queue outage', async () => {
    const { calls, queue } = countingQueue();
    const { edge } = edgeWith({
      queue,
      inbox: new PrepareFailingInbox(new PayloadTooLargeError('too large to store')),
    });
    expect(await edge.receive('fake', request({ events: [event({ eventId: 'bad' })] }))).toEqual({
      status: 413,
      body: { error: 'payload_too_large' },
    });
    expect(calls).toEqual([]);
  });
});
