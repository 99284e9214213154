/**
 * The oldest message's age on the local emulator (fauxqs), as `ratchet doctor` reads it: from the send
 * times on fauxqs's read-only inspection endpoint, never by receiving (a receive counts toward the DLQ).
 * An SQS endpoint that is not fauxqs answers "unmeasurable", not a made-up pass.
 */
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { FauxqsQueueAge, queueNameOf } from '../../lambdas/adapters/queue-age.js';
import { type Emulator, startDynamo, startSqs } from '../../lib/local/emulators.js';

describe('FauxqsQueueAge', () => {
  let sqsEmulator: Emulator;
  let sqs: ReturnType<typeof createSqsClient>;
  let queues = 0;
  beforeAll(async () => {
    sqsEmulator = await startSqs();
    sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: sqsEmulator.endpoint });
  });
  afterAll(async () => {
    sqs?.destroy();
    await sqsEmulator?.stop();
  });
  const queue = async () => (await sqs.send(new CreateQueueCommand({ QueueName: `age-${++queues}` }))).QueueUrl!;

  it('reads the queue name from its URL', () => {
    expect(queueNameOf('https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-events-dlq')).toBe(
      'ratchet-events-dlq',
    );
    expect(queueNameOf('http://127.0.0.1:4566/000000000000/local-events/')).toBe('local-events');
    // fauxqs's own URLs: a host WHATWG URL refuses (it ends in an IPv4 address), so no `new URL` here.
    expect(queueNameOf('http://sqs.us-east-1.127.0.0.1:43165/000000000000/x1')).toBe('x1');
    expect(queueNameOf('ratchet-ses-dead-letters')).toBe('ratchet-ses-dead-letters');
  });

  it('an empty queue is idle', async () => {
    expect(await new FauxqsQueueAge(sqsEmulator.endpoint).oldest(await queue())).toEqual({ kind: 'idle' });
  });

  it('the oldest message, ready or in flight, gives the age; probing leaves the messages unreceived', async () => {
    const url = await queue();
    const sentAt = Date.now();
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'first' }));
    const later = (ms: number) => new FauxqsQueueAge(sqsEmulator.endpoint, () => sentAt + ms);
    const age = await later(3_600_000).oldest(url);
    expect(age.kind).toBe('age');
    // Sent at or just after `sentAt` (same process), so between 59:59 and 60:00 old.
    expect((age as { seconds: number }).seconds).toBeGreaterThanOrEqual(3_599);
    expect((age as { seconds: number }).seconds).toBeLessThanOrEqual(3_600);
    await later(0).oldest(url);

    // Nothing was received by the probes: the first real receive is receive number 1.
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        VisibilityTimeout: 60,
      }),
    );
    expect(received.Messages?.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['first', '1']]);
    // In flight now, still not deleted: still the oldest.
    expect(((await later(120_000).oldest(url)) as { seconds: number }).seconds).toBeGreaterThanOrEqual(119);
  });

  it('an SQS endpoint that is not fauxqs is unmeasurable, not idle', async () => {
    const dynamo = await startDynamo();
    try {
      const age = await new FauxqsQueueAge(dynamo.endpoint).oldest(`${dynamo.endpoint}/000000000000/events`);
      expect(age).toEqual({ kind: 'unmeasurable', why: `${dynamo.endpoint} has no fauxqs inspection endpoint` });
    } finally {
      await dynamo.stop();
    }
  });

  it('a queue fauxqs does not know is unmeasurable', async () => {
    const age = await new FauxqsQueueAge(sqsEmulator.endpoint).oldest(
      `${sqsEmulator.endpoint}/000000000000/no-such-queue`,
    );
    expect(age.kind).toBe('unmeasurable');
  });
});
