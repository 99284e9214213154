import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsFeedDeadLetterQueue } from '../../../lambdas/adapters/sqs-feed-dead-letters.js';
import { SES_FEED } from '../../../lib/definitions.js';

const letter = (i: number) => ({ messageId: `m${i}`, body: `{"n":${i}}`, code: 'authentication_failed' });

describe('SqsFeedDeadLetterQueue', () => {
  const sqs = mockClient(SQSClient);
  afterEach(() => sqs.reset());

  it('sends the body as it arrived, with the error code and its source as attributes, to the queue it resolves', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const unsent = await new SqsFeedDeadLetterQueue(new SQSClient({}), async () => 'https://dlq').send([
      letter(0),
      letter(1),
    ]);
    expect(unsent.size).toBe(0);
    const input = sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input;
    expect(input.QueueUrl).toBe('https://dlq');
    expect(input.Entries).toEqual(
      [0, 1].map((i) => ({
        Id: String(i),
        MessageBody: `{"n":${i}}`,
        MessageAttributes: {
          error: { DataType: 'String', StringValue: 'authentication_failed' },
          source: { DataType: 'String', StringValue: 'ses-feed' },
        },
      })),
    );
  });

  // A partial batch failure is something no emulator produces on cue: the call succeeds, entries fail.
  it('names the letters whose entries failed inside a successful call', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'x', MD5OfMessageBody: '' }],
      Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }],
    });
    expect([
      ...(await new SqsFeedDeadLetterQueue(new SQSClient({}), () => 'https://dlq').send([letter(0), letter(1)])),
    ]).toEqual(['m1']);
  });

  it('a call that fails throws (none sent)', async () => {
    sqs.on(SendMessageBatchCommand).rejects(new Error('down'));
    await expect(new SqsFeedDeadLetterQueue(new SQSClient({}), () => 'https://dlq').send([letter(0)])).rejects.toThrow(
      'down',
    );
  });
});

describe('SES_FEED sizing', () => {
  it('batches at most 10, the most one ReceiveMessage returns', () => {
    expect(SES_FEED.batchSize).toBeLessThanOrEqual(10);
  });

  it('a message that used up every receive still has at least 10 days in the 14-day dead-letter queue (it keeps its enqueue time)', () => {
    expect(SES_FEED.deadLetterRetentionDays).toBe(14);
    expect(SES_FEED.deadLetterRetentionDays - SES_FEED.retentionDays).toBeGreaterThanOrEqual(
      SES_FEED.minimumDeadLetterDaysLeft,
    );
    expect(SES_FEED.minimumDeadLetterDaysLeft).toBeGreaterThanOrEqual(10);
  });

  it('the visibility timeout is at least 6x the function timeout plus the batching window (AWS guidance for SQS event sources)', () => {
    expect(SES_FEED.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
      SES_FEED.timeoutSeconds * 6 + SES_FEED.maxBatchingWindowSeconds,
    );
    // Every receive fits in the retention many times over, so maxReceiveCount is reached, not the retention.
    expect(SES_FEED.visibilityTimeoutSeconds * SES_FEED.maxReceiveCount).toBeLessThan(SES_FEED.retentionDays * 86_400);
  });
});

describe('buildSesFeed', () => {
  it('refuses to start without SES_DEAD_LETTER_QUEUE_URL: every never-admittable message would be retried instead', async () => {
    const { buildSesFeed } = await import('../../../lambdas/adapters/wiring/ses-feed.js');
    const { configFromEnv, createClients } = await import('../../../lambdas/adapters/wiring/config.js');
    const config = configFromEnv({ AWS_REGION: 'us-east-1', QUEUE_URL: 'https://q' });
    expect(() => buildSesFeed(config, createClients(config))).toThrow('SES_DEAD_LETTER_QUEUE_URL is not set');
    const withUrl = configFromEnv({
      AWS_REGION: 'us-east-1',
      QUEUE_URL: 'https://q',
      SES_DEAD_LETTER_QUEUE_URL: 'https://dlq',
    });
    expect(typeof buildSesFeed(withUrl, createClients(withUrl)).process).toBe('function');
  });
});
