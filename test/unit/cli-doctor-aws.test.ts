/**
 * `ratchet doctor` against AWS: SNS, backups and deletion protection have no emulator, so the SDK
 * clients are mocked (aws-sdk-client-mock) and only the verdicts are checked.
 */
import { DescribeContinuousBackupsCommand, DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ratchetCommand } from '../../lib/cli/ratchet.js';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ratchet-ses';
const ALARMS = 'arn:aws:sns:us-east-1:123456789012:ratchet-alarms';

describe('ratchet doctor on AWS', () => {
  let dynamo: ReturnType<typeof mockClient>;
  let sqs: ReturnType<typeof mockClient>;
  let sns: ReturnType<typeof mockClient>;
  beforeEach(() => {
    dynamo = mockClient(DynamoDBClient);
    sqs = mockClient(SQSClient);
    sns = mockClient(SNSClient);
    dynamo.on(DescribeTableCommand).resolves({ Table: { DeletionProtectionEnabled: true } });
    dynamo.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED' } });
    dynamo.on(DescribeContinuousBackupsCommand).resolves({ ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'ENABLED' } } });
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-ses-dead-letters' });
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' } });
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: TOPIC }).resolves({ Subscriptions: [{ Protocol: 'https', Endpoint: 'https://api.example.com/webhooks/ses', SubscriptionArn: `${TOPIC}:abc` }] });
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: ALARMS }).resolves({ Subscriptions: [{ Protocol: 'email', Endpoint: 'ops@example.com', SubscriptionArn: `${ALARMS}:def` }] });
  });
  afterEach(() => {
    dynamo.restore();
    sqs.restore();
    sns.restore();
  });

  const env = {
    RATCHET_TARGET: 'aws',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'y',
    QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-events',
    DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-events-dlq',
    SES_TOPIC_ARN: TOPIC,
    SNS_TOPIC_ARNS: TOPIC,
    ALARM_TOPIC_ARN: ALARMS,
  };
  async function doctor() {
    const out: string[] = [];
    const code = await ratchetCommand(['doctor', '--json'], env, { out: (l) => out.push(l), err: () => undefined, progressTty: false });
    const checks = JSON.parse(out.join('\n')) as Array<{ check: string; status: string; detail: string; fix?: string }>;
    return { code, status: Object.fromEntries(checks.map((c) => [c.check, c.status])), checks };
  }

  it('passes a healthy deployment', async () => {
    const { code, status } = await doctor();
    expect(status).toMatchObject({ 'inbox TTL': 'pass', 'suppression table protection': 'pass', 'SES subscription': 'pass', 'alarm subscribers': 'pass', 'credentials ses': 'pass' });
    expect(code).toBe(0);
  });

  it('fails a pending SNS subscription, an alarm topic nobody confirmed, and a table without PITR', async () => {
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: TOPIC }).resolves({ Subscriptions: [{ Protocol: 'https', Endpoint: 'https://api.example.com/webhooks/ses', SubscriptionArn: 'PendingConfirmation' }] });
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: ALARMS }).resolves({ Subscriptions: [{ Protocol: 'email', Endpoint: 'ops@example.com', SubscriptionArn: 'PendingConfirmation' }] });
    dynamo.on(DescribeContinuousBackupsCommand).resolves({ ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' } } });
    dynamo.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    const { code, status, checks } = await doctor();
    expect(code).toBe(1);
    expect(status).toMatchObject({ 'inbox TTL': 'fail', 'suppression table protection': 'fail', 'SES subscription': 'fail', 'alarm subscribers': 'fail' });
    expect(checks.find((c) => c.check === 'SES subscription')).toMatchObject({ detail: 'PendingConfirmation for https://api.example.com/webhooks/ses' });
    expect(checks.find((c) => c.check === 'suppression table protection')).toMatchObject({ detail: 'point-in-time recovery off' });
  });
});
