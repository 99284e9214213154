/**
 * Locally, a poison message reaches the DLQ within a minute with `npm start`'s own queue settings
 * (LOCAL_QUEUE: a short visibility timeout and three receives), and the consumer logs each failed
 * record with its error and message id, so `ratchet dlq list` is not the only place that says why.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_QUEUE } from '../../lib/local/bootstrap.js';
import { startTestStack, type TestStack } from './harness.js';

describe('a poison message on the local stack', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // The background poller with npm start's retry delay (the harness's default of 0 is for speed).
    stack = await startTestStack({ background: true, retryDelaySeconds: undefined });
  });
  afterAll(() => stack?.stop());

  it('reaches the DLQ within a minute, each failure logged with its error and message id', async () => {
    const sent = await stack.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: stack.queues.queueUrl, MessageBody: '{"not":"an event"}' }),
    );
    const started = Date.now();
    while ((await stack.queueDepth()).dlq === 0 && Date.now() - started < 60_000)
      await new Promise((r) => setTimeout(r, 500));
    expect((await stack.queueDepth()).dlq).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    const failures = stack.log.lines.filter((l) => l.message === 'record failed');
    expect(failures).toHaveLength(LOCAL_QUEUE.maxReceiveCount);
    expect(failures.map((l) => l.fields?.receiveCount)).toEqual([1, 2, 3]);
    for (const line of failures) {
      expect(line.level).toBe('error');
      expect(line.fields).toMatchObject({ messageId: sent.MessageId, error: expect.stringMatching(/\w+: .+/) });
    }
  }, 90_000);
});
