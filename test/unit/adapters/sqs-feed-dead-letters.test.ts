import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsFeedDeadLetterQueue } from '../../../lambdas/adapters/sqs-feed-dead-letters.js';
import { deriveFeedQueue, SES_FEED } from '../../../lib/definitions.js';

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

describe('the feed queue derivation (deriveFeedQueue)', () => {
  const sizing = {
    batchSize: 10,
    maxConcurrency: 10,
    timeoutSeconds: 30,
    maxBatchingWindowSeconds: 1,
    plannedBatchSeconds: 0.25,
    worstBacklogEvents: 50_000_000,
    drainMargin: 2,
    transientToleranceSeconds: 6 * 3_600,
    deadLetterRetentionDays: 14,
    minimumDeadLetterDaysLeft: 10,
  } as const;

  it('today’s numbers are the derivation’s: receives span the tolerance, the worst backlog drains twice within retention', () => {
    const derived = deriveFeedQueue();
    expect(SES_FEED).toMatchObject({
      maxReceiveCount: derived.maxReceiveCount,
      retentionDays: derived.retentionDays,
      visibilityTimeoutSeconds: derived.visibilityTimeoutSeconds,
    });
    expect(SES_FEED.maxReceiveCount * SES_FEED.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
      SES_FEED.transientToleranceSeconds,
    );
    expect(derived.serviceRatePerSecond).toBe(
      (SES_FEED.batchSize * SES_FEED.maxConcurrency) / SES_FEED.plannedBatchSeconds,
    );
    expect(derived.worstDrainSeconds * 2).toBeLessThanOrEqual(SES_FEED.retentionDays * 86_400);
  });

  it('works the formula: 6 h / 181 s -> 120 receives; 14 - 10 - 120 x 181 s -> 3 days; 50 M / 400/s = 125,000 s', () => {
    expect(deriveFeedQueue(sizing)).toEqual({
      visibilityTimeoutSeconds: 181,
      serviceRatePerSecond: 400,
      worstDrainSeconds: 125_000,
      maxReceiveCount: 120,
      retentionDays: 3,
    });
  });

  it('refuses sizing whose worst backlog would not drain well within retention (expiry is loss)', () => {
    expect(() => deriveFeedQueue({ ...sizing, maxConcurrency: 5 })).toThrow(
      /50000000-event backlog drains in 250000 s, not 2x within 3 days of retention/,
    );
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
