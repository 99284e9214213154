import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsEventQueue } from '../../../lambdas/adapters/sqs-queue.js';
import { TransientError } from '../../../lambdas/core/errors.js';

const message = (i: number) => ({
  pk: `p#${i}`,
  event: {
    provider: 'p',
    eventId: String(i),
    recipient: 'a@example.com',
    kind: 'complaint' as const,
    occurredAt: 1,
    detail: {},
  },
});

describe('SqsEventQueue', () => {
  const sqs = mockClient(SQSClient);
  afterEach(() => sqs.reset());

  it('sends in batches of ten', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await new SqsEventQueue(new SQSClient({}), () => 'https://q').send(
      Array.from({ length: 23 }, (_, i) => message(i)),
    );
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries!.length).sort()).toEqual([10, 10, 3]);
    expect(JSON.parse(calls[0]!.args[0].input.Entries![0]!.MessageBody!)).toEqual(message(0));
  });

  // A partial batch failure is something no emulator produces on cue: the call succeeds, entries fail.
  it('treats failed entries in a successful call as a transient failure', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [],
      Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }],
    });
    await expect(new SqsEventQueue(new SQSClient({}), () => 'https://q').send([message(1)])).rejects.toBeInstanceOf(
      TransientError,
    );
  });

  it('treats a throttled call as a transient failure', async () => {
    sqs.on(SendMessageBatchCommand).rejects(Object.assign(new Error('slow down'), { name: 'RequestThrottled' }));
    await expect(new SqsEventQueue(new SQSClient({}), () => 'https://q').send([message(1)])).rejects.toBeInstanceOf(
      TransientError,
    );
  });
});
