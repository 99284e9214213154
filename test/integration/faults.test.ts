/**
 * Faults at every step, each losing zero events. Failures are injected into the real SDK clients
 * (the emulators cannot fail on cue); everything else runs against dynalite and fauxqs.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqsEventQueue } from '../../lambdas/adapters/sqs-queue.js';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';
import { injectFault, startTestStack, type TestStack } from './harness.js';

/** A queue that can be made to "crash": the process dies before the send, or right after it (before the put). */
class CrashableQueue implements EventQueue {
  crash: 'no' | 'before-send' | 'after-send' = 'no';
  constructor(private readonly inner: () => EventQueue) {}
  async send(messages: readonly QueuedEvent[]): Promise<void> {
    if (this.crash === 'before-send') return new Promise<void>(() => undefined);
    await this.inner().send(messages);
    if (this.crash === 'after-send') return new Promise<void>(() => undefined);
  }
}

describe('faults', () => {
  let stack: TestStack;
  const queue = new CrashableQueue(() => new SqsEventQueue(stack.clients.sqs, () => stack.queues.queueUrl));

  beforeAll(async () => {
    stack = await startTestStack({ edge: { queue } });
  });
  afterAll(() => stack?.stop());
  beforeEach(() => {
    queue.crash = 'no';
  });

  const inbox = (input: any) =>
    input.TableName === stack.config.inboxTable && String(input.Item?.pk ?? '').includes('#');
  const suppressionPut = (email: string) => (input: any) =>
    input.TableName === stack.config.suppressionTable && input.Item?.email === email;
  const rowsFor = async (email: string) => (await stack.inboxRows()).filter((r) => r.event.recipient === email);
  const crashedPost = (provider: string, request: { headers: Record<string, string>; body: string }) =>
    expect(
      fetch(`${stack.url}/webhooks/${provider}`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(500),
      }),
    ).rejects.toThrow();

  it('the put fails after the send: 503; the queued event is applied without its row, and the retry stores the row', async () => {
    const email = 'put-fails@example.com';
    const request = stack.sign('sendgrid', 'hard_bounce', email);
    const fault = injectFault(stack.clients.doc, { command: 'PutItemCommand', times: 1, when: inbox });
    const first = await stack.post('sendgrid', request);
    fault.remove();
    expect(fault.hits).toBe(1);
    expect(first.status).toBe(503);
    expect(await rowsFor(email)).toHaveLength(0);
    // The message was sent before the put: the consumer applies it from the message alone.
    expect(await stack.drain()).toBe(1);
    const applied = await stack.record(email);
    expect(applied).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });

    const retry = await stack.post('sendgrid', request);
    expect(retry).toMatchObject({ status: 200, body: { admitted: 1, duplicates: 0 } });
    expect(await rowsFor(email)).toHaveLength(1);
    // The retry's message is a duplicate the consumer absorbs: the record is not even rewritten.
    expect(await stack.drain()).toBe(1);
    expect(await stack.record(email)).toEqual(applied);
  });

  it('SendMessage fails: 503 and nothing stored; the provider retry sends and stores it', async () => {
    const email = 'send-fails@example.com';
    const request = stack.sign('mailgun', 'complaint', email);
    const fault = injectFault(stack.clients.sqs, { command: 'SendMessageBatchCommand', times: 1 });
    expect((await stack.post('mailgun', request)).status).toBe(503);
    fault.remove();
    expect(fault.hits).toBe(1);
    expect(await rowsFor(email)).toHaveLength(0);
    const retry = await stack.post('mailgun', request);
    expect(retry).toMatchObject({ status: 200, body: { admitted: 1, duplicates: 0 } });
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
  });

  it('the process dies before the send: nothing is written, and the redelivery is admitted as new', async () => {
    const email = 'crash-before@example.com';
    const request = stack.sign('standard', 'unsubscribe', email);
    queue.crash = 'before-send';
    await crashedPost('standard', request);
    queue.crash = 'no';
    expect(await rowsFor(email)).toHaveLength(0);
    expect(await stack.queueDepth()).toMatchObject({ visible: 0, inFlight: 0 });
    expect((await stack.post('standard', request)).body).toMatchObject({ admitted: 1, duplicates: 0 });
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'unsubscribe' });
  });

  it('the process dies between the send and the put: the event is applied anyway, and the redelivery stores it', async () => {
    const email = 'crash-after@example.com';
    const request = stack.sign('ses', 'hard_bounce', email);
    queue.crash = 'after-send';
    await crashedPost('ses', request);
    queue.crash = 'no';
    expect(await rowsFor(email)).toHaveLength(0);
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect((await stack.post('ses', request)).body).toMatchObject({ admitted: 1, duplicates: 0 });
    expect(await rowsFor(email)).toHaveLength(1);
    expect(await stack.drain()).toBe(1); // the redelivery's own message, absorbed
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
  });

  it('the consumer throws mid-batch: only the failed record is retried, and it is applied', async () => {
    const emails = Array.from({ length: 5 }, (_, i) => `batch-${i}@example.com`);
    for (const email of emails)
      expect((await stack.post('generic', stack.sign('generic', 'complaint', email))).status).toBe(200);
    const fault = injectFault(stack.clients.doc, {
      command: 'PutItemCommand',
      times: 1,
      when: suppressionPut(emails[2]!),
    });
    const handled = await stack.drain();
    fault.remove();
    expect(fault.hits).toBe(1);
    expect(handled).toBe(6); // five, plus the one retried
    for (const email of emails) expect(await stack.record(email)).toMatchObject({ status: 'suppressed' });
    expect((await stack.queueDepth()).dlq).toBe(0);
  });

  it('the conditional write conflicts: the consumer re-reads, re-applies and succeeds', async () => {
    const email = 'conflict@example.com';
    await stack.post('sendgrid', stack.sign('sendgrid', 'delivered', email));
    await stack.drain();
    await stack.post('sendgrid', stack.sign('sendgrid', 'complaint', email));
    const conflict = () =>
      Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
        $fault: 'client',
      });
    const fault = injectFault(stack.clients.doc, {
      command: 'PutItemCommand',
      times: 3,
      when: suppressionPut(email),
      error: conflict,
    });
    await stack.drain();
    fault.remove();
    expect(fault.hits).toBe(3);
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect((await stack.queueDepth()).dlq).toBe(0);
  });

  it('a poison message goes to the DLQ after maxReceiveCount receives, and nothing else is affected', async () => {
    await stack.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: stack.queues.queueUrl, MessageBody: '{"not":"an event"}' }),
    );
    await stack.drain();
    expect((await stack.queueDepth()).dlq).toBe(1);
  });
});
