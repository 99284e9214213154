/**
 * `ratchet ses redrive` on the real emulators: a dead-lettered SNS message (the envelope exactly as SNS
 * POSTs it, hours old) moves into the suppression table exactly once; the age waiver exists only for
 * messages read from the SNS dead-letter queue, never for an HTTP request.
 */

import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsDeadLetters } from '../../lambdas/adapters/sqs-dead-letters.js';
import type { WebhookEdge } from '../../lambdas/core/pipeline/edge.js';
import { createEdgeHandler } from '../../lambdas/handlers/edge-handler.js';
import { SES_FEED } from '../../lib/definitions.js';
import { sesEnvelopeInboxKey } from '../support/ses-inbox-key.js';
import { injectFault, ratchet, startTestStack, type TestStack } from './harness.js';

const TWO_HOURS_MS = 2 * 60 * 60 * 1000;

describe('ratchet ses redrive', () => {
  let stack: TestStack;
  let dlqUrl: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dlqUrl = (await stack.clients.sqs.send(new GetQueueUrlCommand({ QueueName: 'ratchet-ses-dead-letters' })))
      .QueueUrl!;
  });
  afterAll(() => stack?.stop());

  const run = (...argv: string[]) => ratchet(stack.cliEnv(), ...argv);
  const deadLetter = (body: string) =>
    stack.clients.sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: body }));
  const depth = () => new SqsDeadLetters(stack.clients.sqs, dlqUrl).depth();

  it('the local runtime creates the SES dead-letter queue', () => {
    expect(dlqUrl).toMatch(/ratchet-ses-dead-letters$/);
  });

  it('an HTTP request cannot waive the age limit: a 30-day-old SNS message over HTTP is 401, whatever it adds', async () => {
    const old = stack.sign('ses', 'hard_bounce', 'http-stale@example.com', Date.now() - 30 * 24 * 60 * 60 * 1000);
    const plain = await stack.post('ses', old);
    expect(plain.status).toBe(401);
    const dressed = await stack.post('ses', {
      headers: { ...old.headers, 'x-ratchet-from-sns-dead-letter-queue': 'true', 'x-amz-sns-rawdelivery': 'false' },
      body: old.body,
    });
    expect(dressed.status).toBe(401);
    expect(await stack.record('http-stale@example.com')).toBeUndefined();
  });

  it('the HTTP handler never passes receive options to the edge', async () => {
    const calls: unknown[][] = [];
    const edge = {
      receive: async (...args: unknown[]) => (calls.push(args), { status: 200, body: {} }),
    } as unknown as WebhookEdge;
    await createEdgeHandler(edge)({
      pathParameters: { provider: 'ses' },
      headers: { 'x-ratchet-from-sns-dead-letter-queue': 'true' },
      body: '{"fromSnsDeadLetterQueue":true}',
      isBase64Encoded: false,
    } as never);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(2);
  });

  it('moves a dead-lettered SNS message into the suppression table exactly once', async () => {
    const message = stack.sign('ses', 'hard_bounce', 'dead-letter@example.com', Date.now() - TWO_HOURS_MS);
    await deadLetter(message.body);

    const dry = await run('ses', 'redrive', '--dry-run');
    expect(dry).toMatchObject({
      code: 0,
      out: 'would replay 1 messages: admitted 0, duplicates 0, ignored 0, rejected 0, failed 0',
    });
    expect(dry.err).toMatch(/: Notification$/);
    expect(await depth()).toBe(1);
    expect(await stack.inboxRows()).not.toContainEqual(
      expect.objectContaining({ event: expect.objectContaining({ recipient: 'dead-letter@example.com' }) }),
    );

    const first = await run('ses', 'redrive', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toEqual({
      dryRun: false,
      messages: 1,
      admitted: 1,
      duplicates: 0,
      ignored: 0,
      rejected: 0,
      failed: 0,
    });
    expect(await depth()).toBe(0);
    expect(await stack.drain()).toBe(1);
    const record = await stack.record('dead-letter@example.com');
    expect(record).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(Object.keys(record!.evidence)).toHaveLength(1);

    const again = await run('ses', 'redrive', '--json');
    expect(JSON.parse(again.out)).toMatchObject({ messages: 0, admitted: 0 });

    // The same message dead-lettered twice (SNS delivers at least once): a duplicate, no new effect.
    await deadLetter(message.body);
    const duplicate = await run('ses', 'redrive', '--json');
    expect(JSON.parse(duplicate.out)).toMatchObject({ messages: 1, admitted: 0, duplicates: 1 });
    expect(await depth()).toBe(0);
    // Enqueue-before-store: a duplicate's message is sent before the put finds the row, and the
    // idempotent consumer absorbs it. What matters is the record below: one effect.
    expect(await stack.drain()).toBeLessThanOrEqual(1);
    const { version: _v, updatedAt: _u, ...after } = (await stack.record('dead-letter@example.com'))!;
    const { version: _v2, updatedAt: _u2, ...before } = record!;
    expect(after).toEqual(before);
  });

  it('still verifies the signature: a tampered message is rejected and kept in the queue', async () => {
    const message = stack.sign('ses', 'complaint', 'tampered@example.com', Date.now() - TWO_HOURS_MS);
    const tampered = message.body.replace('tampered@example.com', 'victim@example.com');
    expect(tampered).not.toBe(message.body);
    await deadLetter(tampered);
    const result = await run('ses', 'redrive');
    expect(result.code).toBe(1);
    expect(result.out).toBe('replayed 1 messages: admitted 0, duplicates 0, ignored 0, rejected 1, failed 0');
    expect(result.err).toMatch(/^message .+: 401 .+\(kept in the queue\)$/);
    expect(await depth()).toBe(1);
    expect(await stack.record('victim@example.com')).toBeUndefined();
    // Drop it so later runs start empty.
    const queue = new SqsDeadLetters(stack.clients.sqs, dlqUrl);
    for (const m of await queue.receive(5)) await queue.delete(m);
  });

  it('a timestamp in the future is still refused from the dead-letter queue', async () => {
    const future = stack.sign('ses', 'hard_bounce', 'future@example.com', Date.now() + TWO_HOURS_MS);
    await deadLetter(future.body);
    const result = await run('ses', 'redrive', '--json');
    expect(JSON.parse(result.out)).toMatchObject({ messages: 1, admitted: 0, rejected: 1 });
    expect(await stack.record('future@example.com')).toBeUndefined();
    const queue = new SqsDeadLetters(stack.clients.sqs, dlqUrl);
    for (const m of await queue.receive(5)) await queue.delete(m);
  });

  const emptyQueue = async () => {
    const queue = new SqsDeadLetters(stack.clients.sqs, dlqUrl);
    // Short polls: fauxqs answers one from every message (only AWS samples), and an empty end costs nothing.
    for (let batch = await queue.receive(5, 0); batch.length > 0; batch = await queue.receive(5, 0))
      for (const m of batch) await queue.delete(m);
  };

  it("takes npm start's own variables: SQS_ENDPOINT with the SES_DEAD_LETTER_QUEUE and QUEUE_NAME names", async () => {
    const message = stack.sign('ses', 'hard_bounce', 'by-name@example.com', Date.now() - TWO_HOURS_MS);
    await deadLetter(message.body);
    const env = {
      DYNAMODB_ENDPOINT: stack.config.dynamoEndpoint!,
      SQS_ENDPOINT: stack.config.sqsEndpoint!,
      SES_DEAD_LETTER_QUEUE: 'ratchet-ses-dead-letters',
      QUEUE_NAME: 'ratchet-events',
      RATCHET_DATA_DIR: stack.dataDir,
      AWS_REGION: 'us-east-1',
    };
    const result = await ratchet(env, 'ses', 'redrive', '--json');
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toEqual({
      dryRun: false,
      messages: 1,
      admitted: 1,
      duplicates: 0,
      ignored: 0,
      rejected: 0,
      failed: 0,
    });
    await stack.drain();
    expect(await stack.record('by-name@example.com')).toMatchObject({ status: 'suppressed' });
  });

  it("replays what the feed's redrive policy moved after its last receive (a transient fault that outlasted every retry)", async () => {
    const message = stack.sign('ses', 'complaint', 'outlasted@example.com');
    const key = sesEnvelopeInboxKey(message.body)!;
    const fault = injectFault(stack.clients.doc, {
      command: 'PutItemCommand',
      times: SES_FEED.maxReceiveCount,
      when: (input) => String(input.Item?.pk ?? '') === key,
    });
    await stack.sendToFeed(message.body);
    try {
      for (let i = 0; i < SES_FEED.maxReceiveCount; i++) expect(await stack.sesFeed.pollOnce(0)).toBe(1);
    } finally {
      fault.remove();
    }
    expect(fault.hits).toBe(SES_FEED.maxReceiveCount);
    expect(await stack.feedDepth()).toEqual({ visible: 0, inFlight: 0, dlq: 1 });
    // Its events were sent each time (enqueue before store): the record may exist already. The row does not.
    expect((await stack.inboxRows()).some((row) => row.pk === key)).toBe(false);
    const result = await run('ses', 'redrive', '--json');
    expect(JSON.parse(result.out)).toMatchObject({ messages: 1, admitted: 1, rejected: 0, failed: 0 });
    expect((await stack.inboxRows()).filter((row) => row.pk === key)).toHaveLength(1);
    await stack.drain();
    expect(Object.keys((await stack.record('outlasted@example.com'))!.evidence)).toHaveLength(1);
  });

  it('describes what the feed moved on its first receive, and still refuses it (a forgery stays a forgery)', async () => {
    const forged = stack
      .sign('ses', 'complaint', 'feed-forged@example.com')
      .body.replace('feed-forged@example.com', 'feed-victim@example.com');
    await stack.sendToFeed(forged);
    await stack.drainFeed();
    const dry = await run('ses', 'redrive', '--dry-run');
    expect(dry).toMatchObject({
      code: 0,
      out: 'would replay 1 messages: admitted 0, duplicates 0, ignored 0, rejected 0, failed 0',
    });
    expect(dry.err).toMatch(/^message .+: Notification \(moved by the ses-feed: authentication_failed\)$/);
    const real = await run('ses', 'redrive');
    expect(real.code).toBe(1);
    expect(real.out).toBe('replayed 1 messages: admitted 0, duplicates 0, ignored 0, rejected 1, failed 0');
    expect(await depth()).toBe(1);
    expect(await stack.record('feed-victim@example.com')).toBeUndefined();
    await emptyQueue();
  });
});
