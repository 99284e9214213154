/**
 * Faults at every step, each losing zero events. Failures are injected into the real SDK clients
 * (the emulators cannot fail on cue); everything else runs against dynalite and fauxqs.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventQueue, QueuedEvent } from '../../lambdas/core/pipeline/ports.js';
import { SqsEventQueue } from '../../lambdas/adapters/sqs-queue.js';
import { injectFault, startTestStack, type TestStack } from './harness.js';

/** A queue that can be made to "crash": send never returns, as if the process died after the put. */
class CrashableQueue implements EventQueue {
  crashed = false;
  constructor(private readonly inner: () => EventQueue) {}
  send(messages: readonly QueuedEvent[]): Promise<void> {
    if (this.crashed) return new Promise<void>(() => undefined);
    return this.inner().send(messages);
  }
}

describe('faults', () => {
  let stack: TestStack;
  const queue = new CrashableQueue(() => new SqsEventQueue(stack.clients.sqs, () => stack.queues.queueUrl));

  beforeAll(async () => {
    // The sweeper runs on its own clock, so a test can step past the 5-minute re-send time the edge stamped.
    stack = await startTestStack({ edge: { queue }, sweeper: { now: () => Date.now() + sweepClockAheadMs } });
  });
  afterAll(() => stack?.stop());
  let sweepClockAheadMs = 0;
  beforeEach(() => {
    queue.crashed = false;
    sweepClockAheadMs = 0;
  });
  const SIX_MINUTES = 6 * 60_000;

  const inbox = (input: any) => input.TableName === stack.config.inboxTable && String(input.Item?.pk ?? '').includes('#');
  const suppressionPut = (email: string) => (input: any) =>
    input.TableName === stack.config.suppressionTable && input.Item?.email === email;

  it('inbox put fails: 503, nothing written or queued; the provider retry is applied', async () => {
    const email = 'put-fails@example.com';
    const request = stack.sign('sendgrid', 'hard_bounce', email);
    const fault = injectFault(stack.clients.doc, { command: 'PutItemCommand', times: 1, when: inbox });
    const first = await stack.post('sendgrid', request);
    fault.remove();
    expect(fault.hits).toBe(1);
    expect(first.status).toBe(503);
    expect((await stack.inboxRows()).filter((r) => r.event.recipient === email)).toHaveLength(0);
    expect(await stack.queueDepth()).toMatchObject({ visible: 0 });

    expect((await stack.post('sendgrid', request)).status).toBe(200);
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
  });

  it('SendMessage fails: 503 with the row left pending; the redelivery re-enqueues it', async () => {
    const email = 'send-fails-retry@example.com';
    const request = stack.sign('mailgun', 'complaint', email);
    const fault = injectFault(stack.clients.sqs, { command: 'SendMessageBatchCommand', times: 1 });
    expect((await stack.post('mailgun', request)).status).toBe(503);
    fault.remove();
    const [row] = (await stack.inboxRows()).filter((r) => r.event.recipient === email);
    expect(row).toMatchObject({ status: 'pending' });
    expect(row!.pendingShard).toBeDefined();

    // Mailgun retries with the same token and body: the nonce store lets the identical retry through.
    const retry = await stack.post('mailgun', request);
    expect(retry).toMatchObject({ status: 200, body: { admitted: 0, duplicates: 1 } });
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
  });

  it('SendMessage fails and the provider never retries: the sweeper re-enqueues it', async () => {
    const email = 'send-fails-sweep@example.com';
    const fault = injectFault(stack.clients.sqs, { command: 'SendMessageBatchCommand', times: 1 });
    expect((await stack.post('postmark', stack.sign('postmark', 'hard_bounce', email))).status).toBe(503);
    fault.remove();
    // Not due yet: a row is left to the provider's retry for its first five minutes.
    expect(await stack.sweepOnce()).toEqual({ resent: 0, gaveUp: 0 });
    sweepClockAheadMs = SIX_MINUTES;
    expect(await stack.sweepOnce()).toEqual({ resent: 1, gaveUp: 0 });
    const [row] = (await stack.inboxRows()).filter((r) => r.event.recipient === email);
    expect(row).toMatchObject({ status: 'pending', resends: 1 });
    // Re-sent once; the next re-send waits twice as long.
    expect(row!.resendAt).toBeGreaterThan(Date.now() + SIX_MINUTES + 9 * 60_000);
    expect(await stack.sweepOnce()).toEqual({ resent: 0, gaveUp: 0 });
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed' });
    const [applied] = (await stack.inboxRows()).filter((r) => r.event.recipient === email);
    expect(applied).toMatchObject({ status: 'applied' });
    expect(applied).not.toHaveProperty('pendingShard');
    expect(applied).not.toHaveProperty('resendAt');
    sweepClockAheadMs = 24 * 3_600_000;
    expect(await stack.sweepOnce()).toEqual({ resent: 0, gaveUp: 0 });
  });

  it('the process dies between the put and the send: recovered by the redelivery', async () => {
    const email = 'crash-retry@example.com';
    const request = stack.sign('standard', 'unsubscribe', email);
    queue.crashed = true;
    await expect(
      fetch(`${stack.url}/webhooks/standard`, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(500) }),
    ).rejects.toThrow();
    queue.crashed = false;
    expect((await stack.inboxRows()).find((r) => r.event.recipient === email)).toMatchObject({ status: 'pending' });
    expect((await stack.post('standard', request)).body).toMatchObject({ duplicates: 1 });
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'unsubscribe' });
  });

  it('the process dies between the put and the send: recovered by the sweeper', async () => {
    const email = 'crash-sweep@example.com';
    const request = stack.sign('ses', 'hard_bounce', email);
    queue.crashed = true;
    await expect(
      fetch(`${stack.url}/webhooks/ses`, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(500) }),
    ).rejects.toThrow();
    queue.crashed = false;
    sweepClockAheadMs = SIX_MINUTES;
    expect((await stack.sweepOnce()).resent).toBe(1);
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
  });

  it('the consumer throws mid-batch: only the failed record is retried, and it is applied', async () => {
    const emails = Array.from({ length: 5 }, (_, i) => `batch-${i}@example.com`);
    for (const email of emails) expect((await stack.post('generic', stack.sign('generic', 'complaint', email))).status).toBe(200);
    const fault = injectFault(stack.clients.doc, { command: 'PutItemCommand', times: 1, when: suppressionPut(emails[2]!) });
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
      Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $fault: 'client' });
    const fault = injectFault(stack.clients.doc, { command: 'PutItemCommand', times: 3, when: suppressionPut(email), error: conflict });
    await stack.drain();
    fault.remove();
    expect(fault.hits).toBe(3);
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect((await stack.queueDepth()).dlq).toBe(0);
  });

  it('a poison message goes to the DLQ after maxReceiveCount receives, and nothing else is affected', async () => {
    await stack.clients.sqs.send(new SendMessageCommand({ QueueUrl: stack.queues.queueUrl, MessageBody: '{"not":"an event"}' }));
    await stack.drain();
    expect((await stack.queueDepth()).dlq).toBe(1);
  });
});
