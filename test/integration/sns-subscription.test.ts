/**
 * SNS control messages through the real local stack: a SubscriptionConfirmation is confirmed once,
 * through the confirmer (the ConfirmSubscription API), only for an allowlisted topic and only after the
 * signature check; an UnsubscribeConfirmation changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_TOPIC_ARN,
  demoSigningCertUrl,
  type SnsType,
  signSnsMessage,
  snsHttpRequest,
} from '../../lib/demo/ses.js';
import { ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { startTestStack, type TestStack } from './harness.js';

describe('SNS subscription control messages', () => {
  let stack: TestStack;
  const confirmed: Array<[string, string]> = [];

  beforeAll(async () => {
    stack = await startTestStack({
      edge: { confirmer: { confirm: async (topicArn, token) => void confirmed.push([topicArn, token]) } },
    });
  });
  afterAll(() => stack?.stop());

  function control(type: SnsType, options: { topicArn?: string; tamper?: boolean; messageId?: string } = {}) {
    const creds = ensureDemoCredentials(stack.dataDir).ses!;
    const topicArn = options.topicArn ?? DEMO_TOPIC_ARN;
    const token = `token-${randomUUID()}`;
    const message = signSnsMessage(
      {
        Type: type,
        MessageId: options.messageId ?? randomUUID(),
        Token: token,
        TopicArn: topicArn,
        Message: `You have chosen to subscribe to the topic ${topicArn}.`,
        SubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${topicArn}&Token=${token}`,
        Timestamp: new Date().toISOString(),
        SigningCertURL: demoSigningCertUrl(topicArn, creds.pinnedCertificate!.fileName),
      },
      creds.signingSecret,
    );
    if (options.tamper) message.Token = 'attacker-token';
    return { request: snsHttpRequest(message), token };
  }

  it('confirms an allowlisted topic once, with the signed token, and never twice for the same message', async () => {
    const messageId = randomUUID();
    const { request, token } = control('SubscriptionConfirmation', { messageId });
    const first = await stack.post('ses', request);
    expect(first).toMatchObject({ status: 200, body: { control: 'SubscriptionConfirmation' } });
    expect(confirmed).toContainEqual([DEMO_TOPIC_ARN, token]);
    const count = confirmed.length;
    const retry = await stack.post('ses', request);
    expect(retry.body).toMatchObject({ alreadyConfirmed: true });
    expect(confirmed).toHaveLength(count);
  });

  it('refuses a validly signed confirmation from a topic off the allowlist (403), without confirming', async () => {
    const before = confirmed.length;
    const { request } = control('SubscriptionConfirmation', {
      topicArn: 'arn:aws:sns:us-east-1:000000000000:someone-else',
    });
    expect((await stack.post('ses', request)).status).toBe(403);
    expect(confirmed).toHaveLength(before);
  });

  it('refuses a confirmation whose token was swapped after signing (401), without confirming', async () => {
    const before = confirmed.length;
    const { request } = control('SubscriptionConfirmation', { tamper: true });
    expect((await stack.post('ses', request)).status).toBe(401);
    expect(confirmed).toHaveLength(before);
  });

  it('takes no action on an UnsubscribeConfirmation', async () => {
    const before = confirmed.length;
    const { request } = control('UnsubscribeConfirmation');
    expect((await stack.post('ses', request)).body).toMatchObject({ control: 'UnsubscribeConfirmation' });
    expect(confirmed).toHaveLength(before);
    expect(stack.log.lines.some((l) => l.message.includes('UnsubscribeConfirmation'))).toBe(true);
  });
});
