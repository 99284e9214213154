/** WebhookEdge.receiveBatch: each request answered as `receive` would answer it alone, at the cost of one send. */
import { describe, expect, it } from 'vitest';
import { recordingLog } from '../support/log.js';
import { edgeWith, event, fakeProvider, request } from './fakes.js';

const one = (id: string) => request({ events: [event({ eventId: id })] });

describe('WebhookEdge.receiveBatch', () => {
  it('answers each request as receive would, in order, with one send for the whole batch before any put', async () => {
    const { edge, inbox, queue } = edgeWith();
    let sends = 0;
    const send = queue.send.bind(queue);
    queue.send = async (messages) => {
      sends++;
      return send(messages);
    };
    const ignored = request({ events: [event({ eventId: 'i', kind: 'ignored', ignoredReason: 'open' })] });
    const answers = await edge.receiveBatch('fake', [one('a'), request({ events: [] }, 'wrong'), ignored, one('b')]);
    expect(answers).toEqual([
      { status: 200, body: { ok: true, received: 1, admitted: 1, duplicates: 0, ignored: 0 } },
      { status: 401, body: { error: 'authentication_failed' } },
      {
        status: 200,
        body: { ok: true, received: 1, admitted: 0, duplicates: 0, ignored: 1, ignoredReasons: { open: 1 } },
      },
      { status: 200, body: { ok: true, received: 1, admitted: 1, duplicates: 0, ignored: 0 } },
    ]);
    expect(sends).toBe(1);
    expect(inbox.storeCalls).toEqual([
      { pk: 'fake#a', queuedBefore: 2 },
      { pk: 'fake#b', queuedBefore: 2 },
    ]);
  });

  it('a failed put fails its own request only; the same event twice in one batch is stored once', async () => {
    const { edge, inbox } = edgeWith();
    inbox.failStoreFor.add('b');
    const answers = await edge.receiveBatch('fake', [one('a'), one('b'), one('a')]);
    expect(answers.map((a) => a.status)).toEqual([200, 503, 200]);
    expect([answers[0]!.body.admitted, answers[2]!.body.admitted].sort()).toEqual([0, 1]);
    expect([answers[0]!.body.duplicates, answers[2]!.body.duplicates].sort()).toEqual([0, 1]);
    expect([...inbox.rows.keys()]).toEqual(['fake#a']);
  });

  it('a failed send fails every request that had something to send, and stores nothing', async () => {
    const { edge, inbox, queue } = edgeWith();
    queue.failNext = 1;
    const ignored = request({ events: [event({ eventId: 'i', kind: 'ignored', ignoredReason: 'open' })] });
    const answers = await edge.receiveBatch('fake', [one('a'), ignored, one('b')]);
    expect(answers.map((a) => a.status)).toEqual([503, 200, 503]);
    expect(inbox.storeCalls).toEqual([]);
  });

  it('an oversized body, a crash, and a missing provider are answered per request; nothing is thrown', async () => {
    const { edge } = edgeWith();
    const big = { body: Buffer.alloc(2048, 'x'), headers: { 'x-key': 'k1' } };
    const answers = await edge.receiveBatch('fake', [big, request({ crash: true }), one('ok')]);
    expect(answers.map((a) => a.status)).toEqual([413, 500, 200]);
    expect(await edge.receiveBatch('nope', [one('x'), one('y')])).toEqual([
      { status: 404, body: { error: 'provider_not_found' } },
      { status: 404, body: { error: 'provider_not_found' } },
    ]);
  });

  it('the same confirmation twice in one batch confirms once (controls run one at a time, through the ledger)', async () => {
    const { edge, confirmer } = edgeWith();
    const control = request({
      control: { type: 'SubscriptionConfirmation', topicArn: 'arn:t', token: 'tok', messageId: 'm1' },
    });
    const answers = await edge.receiveBatch('fake', [control, control, one('a')]);
    expect(answers.map((a) => a.body)).toEqual([
      { ok: true, control: 'SubscriptionConfirmation' },
      { ok: true, control: 'SubscriptionConfirmation', alreadyConfirmed: true },
      { ok: true, received: 1, admitted: 1, duplicates: 0, ignored: 0 },
    ]);
    expect(confirmer.calls).toEqual([['arn:t', 'tok']]);
  });

  it('a failed confirmation is a 503 for that request only', async () => {
    const { edge, confirmer } = edgeWith();
    confirmer.fail = true;
    const control = request({
      control: { type: 'SubscriptionConfirmation', topicArn: 'arn:t', token: 'tok', messageId: 'm2' },
    });
    expect((await edge.receiveBatch('fake', [control, one('a')])).map((a) => a.status)).toEqual([503, 200]);
  });

  it("logs each request's acceptance at DEBUG (its caller writes the batch's INFO summary); a single request's stays INFO; rejections stay WARN", async () => {
    const { log, lines } = recordingLog();
    const { edge } = edgeWith({ log });
    await edge.receiveBatch('fake', [one('a'), request({ events: [] }, 'wrong')]);
    expect(lines.map(([level, message]) => [level, message])).toEqual([
      ['warn', 'webhook rejected'],
      ['debug', 'webhook accepted'],
    ]);
    expect(lines[1]![2]).toEqual({
      provider: 'fake',
      received: 1,
      admitted: 1,
      duplicates: 0,
      ignored: 0,
      ignoredReasons: {},
    });
    lines.length = 0;
    await edge.receive('fake', one('b'));
    expect(lines.map(([level, message]) => [level, message])).toEqual([['info', 'webhook accepted']]);
  });

  it('leaves the flush to its caller (one EMF record per invocation)', async () => {
    const { edge, counters } = edgeWith();
    await edge.receiveBatch('fake', [one('a'), one('b')]);
    expect(counters.flushes).toBe(0);
    expect(counters.totals.get('EventsAdmitted{provider=fake}')).toBe(2);
  });

  it('refuses a body over the cap, and only over it, naming the cap in the log', async () => {
    const { log, lines } = recordingLog();
    const body = one('a');
    const atCap = edgeWith({ maxBodyBytes: body.body.length, log });
    expect((await atCap.edge.receiveBatch('fake', [body])).map((a) => a.status)).toEqual([200]);
    const underCap = edgeWith({ maxBodyBytes: body.body.length - 1, log });
    expect(await underCap.edge.receiveBatch('fake', [body])).toEqual([
      { status: 413, body: { error: 'payload_too_large' } },
    ]);
    expect(lines.at(-1)).toEqual([
      'warn',
      'webhook rejected',
      { provider: 'fake', status: 413, code: 'payload_too_large', reason: 'body exceeds the size cap' },
    ]);
    expect(underCap.inbox.storeCalls).toEqual([]);
  });

  it('keys events by their content only for a provider that asks for it (keysByContent)', async () => {
    const withMessage = request({ events: [event({ eventId: 'a', messageId: 'm-1' })] });
    const plain = edgeWith();
    await plain.edge.receiveBatch('fake', [withMessage]);
    expect([...plain.inbox.rows.keys()]).toEqual(['fake#a']);
    const byContent = edgeWith({
      providers: [{ ...fakeProvider({ count: 0, credentials: [] }), keysByContent: true }],
    });
    await byContent.edge.receiveBatch('fake', [withMessage]);
    expect([...byContent.inbox.rows.keys()]).toEqual([expect.stringMatching(/^fake#c1\./)]);
  });
});
