/**
 * `ratchet dlq list|redrive` against the local stack: an event the consumer failed to apply `LOCAL_QUEUE.maxReceiveCount` times
 * lands in the DLQ, is listed with its receive count, and is moved back and applied. The AWS branch
 * (StartMessageMoveTask, which no emulator has) is checked with a mocked SQS client.
 */
import {
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_QUEUE } from '../../lib/local/bootstrap.js';
import { injectFault, ratchet, startTestStack, type TestStack } from './harness.js';

describe('ratchet dlq, locally', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  it('lists a dead-lettered event with its receive count, and the error for a poison message', async () => {
    const fault = injectFault(stack.clients.doc, {
      command: 'PutItemCommand',
      times: LOCAL_QUEUE.maxReceiveCount,
      when: (input) => input.TableName === stack.config.suppressionTable,
    });
    expect((await stack.post('ses', stack.sign('ses', 'hard_bounce', 'dlq@example.com'))).status).toBe(200);
    await stack.drain();
    fault.remove();
    expect(fault.hits).toBe(LOCAL_QUEUE.maxReceiveCount);
    await stack.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: stack.queues.deadLetterUrl, MessageBody: '{"not":"an event"}' }),
    );
    expect((await stack.queueDepth()).dlq).toBe(2);

    const listed = await ratchet(stack.cliEnv(), 'dlq', 'list');
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    const event = lines.find((l) => l.event)!;
    expect(event.event).toMatchObject({ provider: 'ses', kind: 'hard_bounce', recipient: 'dlq@example.com' });
    expect(event.receiveCount).toBeGreaterThanOrEqual(1);
    expect(event.sentAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const poison = lines.find((l) => !l.event)!;
    expect(poison).toMatchObject({ body: '{"not":"an event"}', error: 'queue message has no pk/event' });

    const limited = await ratchet(stack.cliEnv(), 'dlq', 'list', '--limit', '1');
    expect(limited.out.split('\n')).toHaveLength(1);
    expect((await stack.queueDepth()).dlq).toBe(2);
  });

  it('--limit must be a positive whole number (exit 2)', async () => {
    const bad = await ratchet(stack.cliEnv(), 'dlq', 'list', '--limit', 'ten');
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      "error: option '--limit <n>' argument 'ten' is invalid. must be a whole number from 1 to 999999",
    );
  });

  it('redrive --dry-run moves nothing; redrive moves every message back, and the event is applied', async () => {
    const dry = await ratchet(stack.cliEnv(), 'dlq', 'redrive', '--dry-run');
    expect(dry).toMatchObject({ code: 0, out: 'would move 2 messages back to the main queue' });
    expect((await stack.queueDepth()).dlq).toBe(2);

    const moved = await ratchet(stack.cliEnv(), 'dlq', 'redrive');
    expect(moved).toMatchObject({ code: 0, out: 'moved 2 messages back to the main queue' });
    expect((await stack.queueDepth()).dlq).toBe(0);
    await stack.drain();
    expect(await stack.record('dlq@example.com')).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    // The poison message fails again, as many times, and is back in the DLQ: nothing else is lost.
    expect((await stack.queueDepth()).dlq).toBe(1);
  });

  it('without DLQ_URL against AWS, says so', async () => {
    const result = await ratchet({ RATCHET_TARGET: 'aws', AWS_REGION: 'us-east-1' }, 'dlq', 'redrive');
    expect(result.code).toBe(1);
    expect(result.err).toBe('error: dlq redrive: DLQ_URL is not set (take it from the stack outputs)');
  });
});

describe('ratchet dlq redrive on AWS', () => {
  let sqs: ReturnType<typeof mockClient>;
  beforeAll(() => {
    sqs = mockClient(SQSClient);
  });
  afterAll(() => sqs.restore());

  it('starts a message move task and reports its counts', async () => {
    const dlq = 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-events-dlq';
    const arn = 'arn:aws:sqs:us-east-1:123456789012:ratchet-events-dlq';
    sqs
      .on(GetQueueAttributesCommand)
      .callsFake((input: { AttributeNames: string[] }) =>
        input.AttributeNames.includes('QueueArn')
          ? { Attributes: { QueueArn: arn } }
          : { Attributes: { ApproximateNumberOfMessages: '3' } },
      );
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'h' });
    sqs.on(ListMessageMoveTasksCommand).resolves({
      Results: [{ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 3, ApproximateNumberOfMessagesToMove: 3 }],
    });
    const result = await ratchet(
      {
        RATCHET_TARGET: 'aws',
        AWS_REGION: 'us-east-1',
        DLQ_URL: dlq,
        AWS_ACCESS_KEY_ID: 'x',
        AWS_SECRET_ACCESS_KEY: 'y',
      },
      'dlq',
      'redrive',
    );
    expect(result).toMatchObject({ code: 0, out: 'move task COMPLETED: moved 3 of 3 messages' });
    expect(sqs.commandCalls(StartMessageMoveTaskCommand as never)[0]!.args[0].input).toEqual({ SourceArn: arn });
  });
});
