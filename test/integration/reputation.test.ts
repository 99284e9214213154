/**
 * Reputation on the local runtime, end to end: signed webhooks into the real edge, counted in the
 * reputation table on dynalite, judged by the evaluator `npm start` runs, read back by `ratchet
 * reputation --json` and by the client's `senderStatus`, and the client's brake.
 *
 * 1,000 deliveries and 50 hard bounces for one sender (4.76 % of 1,050 attempts) turn it to breach;
 * 2,000 more deliveries (50 of 3,050, 1.64 %: under warn) bring it back to ok. Every request is sent
 * twice and counts once; a SendGrid event re-sent under a new sg_event_id and a queue message delivered
 * again count once too. Counting runs on the inbox's stream (the local runtime's stand-in for it), which
 * `evaluate()` and `flush()` hand to the counter first.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReputationClient } from '../../lambdas/client/reputation.js';
import { createSuppressionClient } from '../../lambdas/client/suppressions.js';
import { settleWithLimit } from '../../lambdas/core/pipeline/concurrency.js';
import { signGenericBody } from '../../lib/demo/generic.js';
import { sampleSendgridEvent, sendgridBatchBody, signSendgridBody } from '../../lib/demo/sendgrid.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

const SENDER = 'news.example.com';

describe('reputation on the local runtime', () => {
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startTestStack();
    env = stack.cliEnv({ REPUTATION_TABLE: stack.config.reputationTable! });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** One generic event for SENDER, signed; the same bytes every time it is posted. */
  const signed = (type: 'delivered' | 'hard_bounce', n: number) => {
    const id = `evt_${type}_${n}_${randomUUID()}`;
    const body = JSON.stringify({ id, type, recipient: `r${n}@example.org`, sender: `News <n@${SENDER}>` });
    const timestamp = String(Math.floor(Date.now() / 1000));
    return { headers: signGenericBody(stack.demo.generic!.signingSecret, id, timestamp, body), body };
  };

  /** Posts each request twice: the second is a provider's retry, answered as a duplicate. */
  const postTwice = async (requests: Array<{ headers: Record<string, string>; body: string }>) => {
    const answers = await settleWithLimit(requests, 8, async (request) => {
      const first = await stack.post('generic', request);
      const second = await stack.post('generic', request);
      return [first, second] as const;
    });
    for (const answer of answers) {
      if (answer.status === 'rejected') throw answer.reason;
      const [first, second] = answer.value;
      expect([first.status, first.body.admitted, second.status, second.body.duplicates]).toEqual([200, 1, 200, 1]);
    }
  };

  const cli = async (...args: string[]) => {
    const { code, out, err } = await ratchet(env, 'reputation', ...args);
    expect([code, err]).toEqual([0, '']);
    return JSON.parse(out) as { window: string; senders: Array<Record<string, unknown>> };
  };

  const statusNow = () =>
    createReputationClient({
      endpoint: stack.config.dynamoEndpoint,
      tableName: stack.config.reputationTable,
      cacheSeconds: 0,
    }).senderStatus(SENDER);

  it('1,000 deliveries and 50 hard bounces, each sent twice, turn the sender to breach, counted once', async () => {
    await postTwice([
      ...Array.from({ length: 1000 }, (_, n) => signed('delivered', n)),
      ...Array.from({ length: 50 }, (_, n) => signed('hard_bounce', 1000 + n)),
    ]);
    const evaluation = await stack.reputation.evaluate();
    expect(evaluation.changes).toEqual([
      expect.objectContaining({ sender: SENDER, provider: 'generic', previous: 'ok', state: 'breach', attempts: 1050 }),
    ]);
    // One WARN line for the change, naming the sender, its rates and the threshold crossed.
    const lines = stack.log.lines.filter((l) => l.message === 'sender reputation changed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      fields: { sender: SENDER, to: 'breach', attempts: 1050, threshold: 'breach: hard bounces ≥ 4 %' },
    });
    // A second run with nothing new changes nothing and says nothing.
    expect((await stack.reputation.evaluate()).changes).toEqual([]);
    expect(stack.log.lines.filter((l) => l.message === 'sender reputation changed')).toHaveLength(1);

    const { senders } = await cli('--json', '--sender', SENDER);
    expect(senders).toEqual([
      expect.objectContaining({
        sender: SENDER,
        provider: 'generic',
        window: '24h',
        state: 'breach',
        storedState: 'breach',
        attempts: 1050,
        delivered: 1000,
        hardBounced: 50,
        bounceRate: 50 / 1050,
      }),
    ]);
    const status = await statusNow();
    expect(status).toEqual({
      state: senders[0]!.state,
      bounceRate: senders[0]!.bounceRate,
      complaintRate: senders[0]!.complaintRate,
      attempts: senders[0]!.attempts,
      window: senders[0]!.window,
      provider: 'generic',
    });
  }, 240_000);

  it('the brake: every subscription address refused with sender_breach, every transactional one allowed', async () => {
    const client = createSuppressionClient({
      endpoint: stack.config.dynamoEndpoint,
      tableName: stack.config.suppressionTable,
      reputationTable: stack.config.reputationTable,
    });
    const list = ['a@example.org', 'B@example.org', 'a@example.org', 'not an address'];
    expect(await client.filterSendable(list, { topic: 'newsletter', sender: SENDER, brake: true })).toEqual({
      sendable: [],
      suppressed: [
        { email: 'a@example.org', reason: 'sender_breach' },
        { email: 'b@example.org', reason: 'sender_breach' },
        { email: 'not an address', reason: 'invalid_address' },
      ],
    });
    expect(await client.filterSendable(list, { transactional: true, sender: SENDER, brake: true })).toMatchObject({
      sendable: ['a@example.org', 'b@example.org'],
    });
    expect(await client.filterSendable(list, { transactional: true, sender: SENDER, brake: 'all' })).toMatchObject({
      sendable: [],
    });
    // Without the brake, the sender's state changes nothing; another sender is not braked.
    expect((await client.filterSendable(list, { topic: 'newsletter', sender: SENDER })).sendable).toHaveLength(2);
    expect(
      (await client.filterSendable(list, { topic: 'newsletter', sender: 'other.example', brake: true })).sendable,
    ).toHaveLength(2);
    expect(await client.isSuppressed('a@example.org', { sender: SENDER, brake: true })).toBe(true);
    expect(await client.isSuppressed('a@example.org', { transactional: true, sender: SENDER, brake: true })).toBe(
      false,
    );
  });

  it('a SendGrid event re-sent under a new sg_event_id, and a queue message delivered again, count once', async () => {
    const event = sampleSendgridEvent('delivered', 'sg@example.org', Date.now());
    const key = stack.demo.sendgrid!.signingSecret;
    for (const copy of [event, { ...event, sg_event_id: randomUUID() }]) {
      const body = sendgridBatchBody([copy]);
      const answer = await stack.post('sendgrid', {
        headers: signSendgridBody(body, String(Math.floor(Date.now() / 1000)), key),
        body,
      });
      expect(answer.status).toBe(200);
    }
    // The queue holds both copies' messages (the edge sends before it stores): applying them twice
    // is the consumer's, and counts nothing more.
    await stack.drain();
    await stack.drain();
    // Counted from the inbox's stream, as on AWS: the local stream hands its buffer to the counter now.
    await stack.reputation.flush();
    const { senders } = await cli('--json', '--sender', 'sendgrid');
    expect(senders).toEqual([expect.objectContaining({ provider: 'sendgrid', delivered: 1, attempts: 1 })]);
  }, 120_000);

  it('2,000 more deliveries bring the breach back to ok (50 of 3,050 is under warn), announced once', async () => {
    await postTwice(Array.from({ length: 2000 }, (_, n) => signed('delivered', 2000 + n)));
    const evaluation = await stack.reputation.evaluate();
    expect(evaluation.changes).toEqual([
      expect.objectContaining({ sender: SENDER, previous: 'breach', state: 'ok', attempts: 3050 }),
    ]);
    expect(stack.log.lines.filter((l) => l.message === 'sender reputation changed')).toHaveLength(2);
    const { senders } = await cli('--json', '--sender', SENDER);
    expect(senders).toEqual([expect.objectContaining({ state: 'ok', attempts: 3050, hardBounced: 50 })]);
    const status = await statusNow();
    expect([status.state, status.attempts, status.bounceRate]).toEqual(['ok', 3050, senders[0]!.bounceRate]);
    // The 7-day view holds the same hour, judged without memory.
    expect((await cli('--json', '--window', '7d', '--sender', SENDER)).senders).toEqual([
      expect.objectContaining({ window: '7d', state: 'ok', attempts: 3050 }),
    ]);
  }, 240_000);

  it('refuses a bad flag or sender with exit 2, and prints a table by default', async () => {
    expect((await ratchet(env, 'reputation', '--window', '30d')).code).toBe(2);
    expect((await ratchet(env, 'reputation', '--sender', 'has space')).code).toBe(2);
    expect((await ratchet(env, 'reputation', '--bogus')).code).toBe(2);
    const { code, out } = await ratchet(env, 'reputation');
    expect(code).toBe(0);
    expect(out).toMatch(/^SENDER\s+PROVIDER\s+STATE\s+ATTEMPTS/);
    expect(out).toMatch(new RegExp(`${SENDER.replaceAll('.', '\\.')}\\s+generic\\s+ok\\s+3050\\s+1\\.64 % \\(50\\)`));
    expect(out).toContain('warn at 2 % hard bounces or 0.05 % complaints, breach at 4 % or 0.08 %');
  });
});
