import { ConfirmSubscriptionCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SnsSubscriptionConfirmer } from '../../../lambdas/adapters/sns/confirmer.js';

describe('SnsSubscriptionConfirmer', () => {
  const sns = mockClient(SNSClient);
  afterEach(() => sns.reset());

  it('calls ConfirmSubscription in the topic region with AuthenticateOnUnsubscribe', async () => {
    sns.on(ConfirmSubscriptionCommand).resolves({ SubscriptionArn: 'arn:sub' });
    const regions: string[] = [];
    const confirmer = new SnsSubscriptionConfirmer((region) => {
      regions.push(region);
      return new SNSClient({ region });
    });
    await confirmer.confirm('arn:aws:sns:eu-west-1:123456789012:bounces', 'tok');
    await confirmer.confirm('arn:aws:sns:eu-west-1:123456789012:other', 'tok2');
    expect(regions).toEqual(['eu-west-1']); // one client per region, reused
    expect(sns.commandCalls(ConfirmSubscriptionCommand).map((c) => c.args[0].input)).toEqual([
      { TopicArn: 'arn:aws:sns:eu-west-1:123456789012:bounces', Token: 'tok', AuthenticateOnUnsubscribe: 'true' },
      { TopicArn: 'arn:aws:sns:eu-west-1:123456789012:other', Token: 'tok2', AuthenticateOnUnsubscribe: 'true' },
    ]);
  });

  it('propagates API failures so the edge answers 5xx and SNS retries', async () => {
    sns.on(ConfirmSubscriptionCommand).rejects(new Error('throttled'));
    await expect(new SnsSubscriptionConfirmer().confirm('arn:aws:sns:us-east-1:123456789012:t', 'tok')).rejects.toThrow(
      'throttled',
    );
  });
});
