/**
 * The CLI reads the variables `npm start` reads: with SQS_ENDPOINT set and no QUEUE_URL/DLQ_URL, the
 * queues are QUEUE_NAME (default as for `npm start`) and `<name>-dlq`, looked up by name on that
 * endpoint; a name that does not exist leaves QUEUE_URL unset, and the command says so.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE } from '../../lib/definitions.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

describe('queues by name, as npm start names them', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  const env = (extra: Record<string, string>) => {
    const { QUEUE_URL: _q, DLQ_URL: _d, ...rest } = stack.cliEnv(extra);
    return rest;
  };

  it.each([[{ QUEUE_NAME: QUEUE.defaultName }], [{}]])(
    'dlq list and dlq redrive --dry-run find the queues through SQS_ENDPOINT (%j)',
    async (extra) => {
      await stack.clients.sqs.send(
        new SendMessageCommand({ QueueUrl: stack.queues.deadLetterUrl, MessageBody: '{"poison":true}' }),
      );
      const listed = await ratchet(env(extra), 'dlq', 'list', '--json');
      expect(listed.code).toBe(0);
      expect(listed.out.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(1);
      const dry = await ratchet(env(extra), 'dlq', 'redrive', '--dry-run');
      expect(dry).toMatchObject({
        code: 0,
        out: expect.stringMatching(/^would move \d+ messages back to the main queue$/),
      });
    },
  );

  it('a QUEUE_NAME that does not exist: the command names the variable to set', async () => {
    const result = await ratchet(env({ QUEUE_NAME: 'no-such-queue' }), 'inbox', 'replay', 'ses', 'abc');
    expect(result).toMatchObject({ code: 2, err: 'error: QUEUE_URL is not set (take it from the stack outputs)' });
  });
});
