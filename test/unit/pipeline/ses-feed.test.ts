/** The SES feed's per-message outcomes, from the edge's answers: delete, dead-letter on first receive, or retry. */
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import type { EdgeResponse } from '../../../lambdas/core/pipeline/edge.js';
import {
  batchCounts,
  type FeedDeadLetter,
  type FeedRecord,
  feedOutcome,
  SesFeed,
} from '../../../lambdas/core/pipeline/ses-feed.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { createSesFeedHandler } from '../../../lambdas/handlers/ses-feed-handler.js';
import { recordingLog } from '../support/log.js';

const answer = (status: number, error?: string): EdgeResponse => ({ status, body: error ? { error } : { ok: true } });

describe('feedOutcome', () => {
  it.each([200, 202, 299])('%d (admitted, duplicate, ignored, confirmed) deletes the message', (status) => {
    expect(feedOutcome(answer(status))).toEqual({ action: 'delete' });
  });

  it.each([
    [400, 'malformed_request'],
    [401, 'authentication_failed'],
    [401, 'stale_request'],
    [403, 'forbidden_sender'],
    [404, 'provider_not_found'],
    [409, 'replayed'],
    [413, 'payload_too_large'],
    [499, 'anything'],
  ])('%d %s can never be admitted: dead-letter it', (status, code) => {
    expect(feedOutcome(answer(status, code))).toEqual({ action: 'dead-letter', status, code });
  });

  it.each([
    [429, 'throttled'],
    [500, 'internal_error'],
    [503, 'transient_failure'],
    [504, 'timeout'],
    [100, 'continue'],
    [302, 'found'],
  ])('%d %s is retried by SQS', (status, code) => {
    expect(feedOutcome(answer(status, code))).toEqual({ action: 'retry', status, code });
  });

  it('names a status without a code', () => {
    expect(feedOutcome({ status: 403, body: {} })).toEqual({ action: 'dead-letter', status: 403, code: 'status_403' });
    expect(feedOutcome({ status: 503, body: { error: 42 } })).toEqual({
      action: 'retry',
      status: 503,
      code: 'status_503',
    });
  });
});

function feedWith(
  answers: EdgeResponse[],
  deadLetters: (letters: readonly FeedDeadLetter[]) => Promise<ReadonlySet<string>> = async () => new Set(),
) {
  const seen: WebhookRequest[][] = [];
  const sent: FeedDeadLetter[][] = [];
  const counters = new MemoryCounters();
  const { log, lines } = recordingLog();
  const feed = new SesFeed({
    edge: {
      receiveBatch: async (provider, requests) => {
        expect(provider).toBe('ses');
        seen.push([...requests]);
        return answers.slice(0, requests.length);
      },
    },
    deadLetters: {
      send: async (letters) => {
        sent.push([...letters]);
        return deadLetters(letters);
      },
    },
    log,
    counters,
  });
  return { feed, seen, sent, counters, lines };
}

const records = (n: number): FeedRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    messageId: `sqs-${i}`,
    body: JSON.stringify({ Type: 'Notification', MessageId: `sns-${i}`, TopicArn: 'arn:t', Signature: 'sig' }),
  }));

describe('SesFeed', () => {
  it('hands the edge each body as the request SNS would have POSTed, with the headers SNS adds', async () => {
    const { feed, seen } = feedWith([answer(200)]);
    await feed.process(records(1));
    const [request] = seen[0]!;
    expect(request!.body.toString('utf8')).toBe(records(1)[0]!.body);
    expect(request!.headers).toEqual({
      'content-type': 'text/plain; charset=UTF-8',
      'x-amz-sns-message-type': 'Notification',
      'x-amz-sns-message-id': 'sns-0',
      'x-amz-sns-topic-arn': 'arn:t',
    });
  });

  it('a body that is not JSON gets empty SNS headers (and is refused by the edge, like the HTTP route)', async () => {
    const { feed, seen } = feedWith([answer(400, 'malformed_request')]);
    await feed.process([{ messageId: 'x', body: 'not json' }]);
    expect(seen[0]![0]!.headers['x-amz-sns-message-type']).toBe('');
  });

  it('deletes successes, moves what can never be admitted, and fails only the transient ones', async () => {
    const { feed, sent, counters, lines } = feedWith([
      answer(200),
      answer(401, 'authentication_failed'),
      answer(503, 'transient_failure'),
      answer(403, 'forbidden_sender'),
      answer(429, 'throttled'),
    ]);
    const input = records(5);
    expect(await feed.process(input)).toEqual(['sqs-2', 'sqs-4']);
    expect(sent).toEqual([
      [
        { messageId: 'sqs-1', body: input[1]!.body, code: 'authentication_failed' },
        { messageId: 'sqs-3', body: input[3]!.body, code: 'forbidden_sender' },
      ],
    ]);
    expect(counters.totals.get('SesFeedDeadLettered{provider=ses}')).toBe(2);
    expect(counters.flushes).toBe(1);
    expect(lines).toEqual([
      [
        'warn',
        'SES feed message failed; SQS will deliver it again',
        { messageId: 'sqs-2', status: 503, code: 'transient_failure' },
      ],
      [
        'warn',
        'SES feed message failed; SQS will deliver it again',
        { messageId: 'sqs-4', status: 429, code: 'throttled' },
      ],
      [
        'warn',
        'SES feed message dead-lettered: it can never be admitted',
        { messageId: 'sqs-1', code: 'authentication_failed' },
      ],
      [
        'warn',
        'SES feed message dead-lettered: it can never be admitted',
        { messageId: 'sqs-3', code: 'forbidden_sender' },
      ],
      [
        'info',
        'SES feed batch',
        { messages: 5, events: 0, admitted: 0, duplicates: 0, ignored: 0, deadLettered: 2, failed: 2 },
      ],
    ]);
    expect(JSON.stringify(lines)).not.toContain('sig');
  });

  it('a clean batch writes one INFO line with its counts (events summed over messages, ignored reasons merged), and nothing per message', async () => {
    const accepted = (
      received: number,
      admitted: number,
      duplicates: number,
      ignored: number,
      ignoredReasons?: Record<string, number>,
    ): EdgeResponse => ({
      status: 200,
      body: { ok: true, received, admitted, duplicates, ignored, ...(ignoredReasons ? { ignoredReasons } : {}) },
    });
    const { feed, lines, sent } = feedWith([
      accepted(1, 1, 0, 0),
      accepted(3, 1, 1, 1, { 'recipient is not an email address': 1 }),
      accepted(1, 0, 1, 0),
      { status: 200, body: { ok: true, control: 'SubscriptionConfirmation' } },
      accepted(2, 0, 0, 2, { 'recipient is not an email address': 1, open: 1 }),
    ]);
    expect(await feed.process(records(5))).toEqual([]);
    expect(lines).toEqual([
      [
        'info',
        'SES feed batch',
        {
          messages: 5,
          events: 7,
          admitted: 2,
          duplicates: 2,
          ignored: 3,
          ignoredReasons: { 'recipient is not an email address': 2, open: 1 },
          deadLettered: 0,
          failed: 0,
        },
      ],
    ]);
    expect(sent).toEqual([]);
  });

  it('the summary counts a dead letter whose move failed as failed, not dead-lettered', async () => {
    const { feed, lines } = feedWith(
      [answer(401, 'authentication_failed'), answer(401, 'authentication_failed')],
      async () => new Set(['sqs-1']),
    );
    await feed.process(records(2));
    expect(lines.at(-1)).toEqual([
      'info',
      'SES feed batch',
      { messages: 2, events: 0, admitted: 0, duplicates: 0, ignored: 0, deadLettered: 1, failed: 1 },
    ]);
  });

  it('a dead-letter send that throws fails every letter (SQS keeps them) and counts none', async () => {
    const { feed, counters, lines } = feedWith(
      [answer(401, 'authentication_failed'), answer(200), answer(400, 'malformed_request')],
      async () => {
        throw new Error('sqs down');
      },
    );
    expect(await feed.process(records(3))).toEqual(['sqs-0', 'sqs-2']);
    expect(counters.totals.get('SesFeedDeadLettered{provider=ses}')).toBe(0);
    expect(lines.filter(([level]) => level === 'error').map(([, , fields]) => fields)).toEqual([
      { messageId: 'sqs-0', code: 'authentication_failed', error: 'Error: sqs down' },
      { messageId: 'sqs-2', code: 'malformed_request', error: 'Error: sqs down' },
    ]);
  });

  it('a letter the queue did not take is a failure; the others moved and are counted', async () => {
    const { feed, counters, lines } = feedWith(
      [answer(401, 'authentication_failed'), answer(401, 'authentication_failed')],
      async () => new Set(['sqs-1']),
    );
    expect(await feed.process(records(2))).toEqual(['sqs-1']);
    expect(counters.totals.get('SesFeedDeadLettered{provider=ses}')).toBe(1);
    expect(lines.filter(([level]) => level === 'error')).toEqual([
      [
        'error',
        'SES feed dead-letter move failed; SQS will deliver it again',
        { messageId: 'sqs-1', code: 'authentication_failed', error: 'entry failed' },
      ],
    ]);
  });

  it('flushes even when the edge throws, and an empty batch calls nothing', async () => {
    const counters = new MemoryCounters();
    const feed = new SesFeed({
      edge: { receiveBatch: async () => Promise.reject(new Error('bug')) },
      deadLetters: { send: async () => new Set() },
      log: recordingLog().log,
      counters,
    });
    await expect(feed.process(records(1))).rejects.toThrow('bug');
    expect(counters.flushes).toBe(1);
    expect(await feed.process([])).toEqual([]);
    expect(counters.flushes).toBe(1);
  });
});

describe('batchCounts', () => {
  it('merges only ignoredReasons that are objects', () => {
    const body = (ignoredReasons: unknown) => ({
      status: 200,
      body: { ok: true, received: 1, ignored: 1, ignoredReasons },
    });
    expect(batchCounts([body(undefined), body(null), body('open'), body({ open: 2 })])).toEqual({
      events: 4,
      admitted: 0,
      duplicates: 0,
      ignored: 4,
      ignoredReasons: { open: 2 },
    });
  });
});

describe('createSesFeedHandler', () => {
  it('reports the failed SQS message ids as batch item failures', async () => {
    const handler = createSesFeedHandler({
      process: async (input) => input.filter((r) => r.body === 'bad').map((r) => r.messageId),
    });
    const record = (messageId: string, body: string) => ({ messageId, body }) as never;
    expect(await handler({ Records: [record('1', 'ok'), record('2', 'bad')] })).toEqual({
      batchItemFailures: [{ itemIdentifier: '2' }],
    });
  });
});
