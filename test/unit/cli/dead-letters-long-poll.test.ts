/**
 * `ratchet dlq list|redrive` and `ratchet ses redrive` read their queue with long polls. On AWS a short
 * poll (WaitTimeSeconds 0) is answered from a sample of SQS's servers and can come back empty while
 * messages wait: the listing printed nothing and the redrives stopped with dead letters left. No
 * emulator samples, so SQS is mocked (aws-sdk-client-mock) with a queue that answers every short poll
 * empty, as a sampled answer may. The end is decided as `sync status` decides it: the first empty long
 * poll, or a batch of messages all handed out already (a run longer than the hiding time).
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEAD_LETTER_LONG_POLL_SECONDS } from '../../../lambdas/adapters/sqs-dead-letters.js';
import { ratchetCommand } from '../../../lib/cli/ratchet.js';

const DLQ = 'https://sqs.us-east-1.amazonaws.com/123456789012/acme-dlq';
const MAIN = 'https://sqs.us-east-1.amazonaws.com/123456789012/acme-events';
const SES_DLQ = 'https://sqs.us-east-1.amazonaws.com/123456789012/acme-ses-dead-letters';

/**
 * A queue as AWS may answer it: every short poll is a sample that misses; a long poll hands out the
 * messages not hidden, up to 10. `reappear`: a message handed out is handed out again (its hiding ran out).
 */
function sampledQueue(sqs: ReturnType<typeof mockClient>, count: number, { reappear = false } = {}) {
  const waiting: Message[] = Array.from({ length: count }, (_, i) => ({
    MessageId: `m${i}`,
    ReceiptHandle: `r${i}`,
    Body: JSON.stringify({ not: `an event ${i}` }),
    Attributes: { ApproximateReceiveCount: '3', SentTimestamp: '1700000000000' },
  }));
  let visible = [...waiting];
  sqs.on(ReceiveMessageCommand).callsFake((input: { WaitTimeSeconds?: number }) => {
    if (!input.WaitTimeSeconds) return {};
    const batch = visible.slice(0, 10);
    if (!reappear) visible = visible.slice(10);
    return batch.length > 0 ? { Messages: batch } : {};
  });
  sqs.on(DeleteMessageCommand).callsFake((input: { ReceiptHandle: string }) => {
    visible = visible.filter((m) => m.ReceiptHandle !== input.ReceiptHandle);
    return {};
  });
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({ MessageId: 'sent' });
  sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: String(count) } });
}

async function run(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await ratchetCommand(argv, env, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    progressTty: false,
  });
  return { code, out, err };
}

describe('the dead-letter commands poll long, and end as sync status ends', () => {
  let sqs: ReturnType<typeof mockClient>;
  beforeEach(() => {
    sqs = mockClient(SQSClient);
  });
  afterEach(() => sqs.restore());

  const aws = { RATCHET_TARGET: 'aws', AWS_REGION: 'us-east-1', DLQ_URL: DLQ, QUEUE_URL: MAIN };
  /** Every receive was a long poll of the shared bound, and the last one came back empty (the end). */
  function expectLongPollsOnly(receives: number) {
    const calls = sqs.commandCalls(ReceiveMessageCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.WaitTimeSeconds)).toEqual(Array(receives).fill(DEAD_LETTER_LONG_POLL_SECONDS));
    expect(DEAD_LETTER_LONG_POLL_SECONDS).toBeGreaterThan(0);
  }

  it('dlq list lists every dead letter a short poll would miss', async () => {
    sampledQueue(sqs, 12);
    const result = await run(aws, 'dlq', 'list');
    expect(result.code).toBe(0);
    expect(result.out.map((l) => JSON.parse(l).messageId)).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));
    expectLongPollsOnly(3);
    // Listing is not taking: each is made visible again.
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(12);
  });

  it('dlq list longer than the hiding time: the dead letters handed out again end it, none listed twice', async () => {
    sampledQueue(sqs, 3, { reappear: true });
    const result = await run(aws, 'dlq', 'list');
    expect(result.code).toBe(0);
    expect(result.out.map((l) => JSON.parse(l).messageId)).toEqual(['m0', 'm1', 'm2']);
    expectLongPollsOnly(2);
  });

  it('dlq redrive (off AWS: by hand) moves every dead letter a short poll would miss', async () => {
    sampledQueue(sqs, 12);
    const { RATCHET_TARGET: _aws, ...rest } = aws;
    const result = await run({ ...rest, DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' }, 'dlq', 'redrive');
    expect(result).toMatchObject({ code: 0, out: ['moved 12 messages back to the main queue'] });
    expect(sqs.commandCalls(SendMessageCommand).every((c) => c.args[0].input.QueueUrl === MAIN)).toBe(true);
    expect(sqs.commandCalls(DeleteMessageCommand)).toHaveLength(12);
    expectLongPollsOnly(3);
  });

  it('ses redrive reads every dead letter a short poll would miss', async () => {
    sampledQueue(sqs, 12);
    const result = await run(
      { RATCHET_TARGET: 'aws', AWS_REGION: 'us-east-1', SES_DEAD_LETTER_QUEUE: SES_DLQ },
      'ses',
      'redrive',
      '--dry-run',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out[0]!)).toMatchObject({ dryRun: true, messages: 12 });
    expectLongPollsOnly(3);
  });

  it('ses redrive longer than the hiding time: the kept messages handed out again end it, none counted twice', async () => {
    sampledQueue(sqs, 3, { reappear: true });
    const result = await run(
      { RATCHET_TARGET: 'aws', AWS_REGION: 'us-east-1', SES_DEAD_LETTER_QUEUE: SES_DLQ },
      'ses',
      'redrive',
      '--dry-run',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out[0]!)).toMatchObject({ messages: 3 });
    expectLongPollsOnly(2);
  });
});
