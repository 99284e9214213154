/**
 * `ratchet doctor` against AWS: SNS, CloudWatch, backups and deletion protection have no emulator, so
 * the SDK clients are mocked (aws-sdk-client-mock) and only the verdicts are checked.
 */
import { CloudWatchClient, GetMetricDataCommand, type GetMetricDataCommandInput } from '@aws-sdk/client-cloudwatch';
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ratchetCommand } from '../../../lib/cli/ratchet.js';
import { ALARMS } from '../../../lib/definitions.js';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ratchet-ses';
const ALARM_TOPIC = 'arn:aws:sns:us-east-1:123456789012:ratchet-alarms';

describe('ratchet doctor on AWS', () => {
  let dynamo: ReturnType<typeof mockClient>;
  let sqs: ReturnType<typeof mockClient>;
  let sns: ReturnType<typeof mockClient>;
  let cloudwatch: ReturnType<typeof mockClient>;
  beforeEach(() => {
    cloudwatch = mockClient(CloudWatchClient);
    cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'age', Values: [], Timestamps: [] }] });
    dynamo = mockClient(DynamoDBClient);
    sqs = mockClient(SQSClient);
    sns = mockClient(SNSClient);
    dynamo.on(DescribeTableCommand).resolves({ Table: { DeletionProtectionEnabled: true } });
    // The reputation registry: no sender counted yet.
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED' } });
    dynamo.on(DescribeContinuousBackupsCommand).resolves({
      ContinuousBackupsDescription: {
        ContinuousBackupsStatus: 'ENABLED',
        PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'ENABLED' },
      },
    });
    sqs
      .on(GetQueueUrlCommand)
      .resolves({ QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/ratchet-ses-dead-letters' });
    sqs
      .on(GetQueueAttributesCommand)
      .resolves({ Attributes: { ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' } });
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: TOPIC }).resolves({
      Subscriptions: [
        { Protocol: 'https', Endpoint: 'https://api.example.com/webhooks/ses', SubscriptionArn: `${TOPIC}:abc` },
      ],
    });
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: ALARM_TOPIC }).resolves({
      Subscriptions: [{ Protocol: 'email', Endpoint: 'ops@example.com', SubscriptionArn: `${ALARM_TOPIC}:def` }],
    });
  });
  afterEach(() => {
    dynamo.restore();
    sqs.restore();
    sns.restore();
    cloudwatch.restore();
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
    ALARM_TOPIC_ARN: ALARM_TOPIC,
  };
  async function doctor() {
    const out: string[] = [];
    const code = await ratchetCommand(['doctor', '--json'], env, {
      out: (l) => out.push(l),
      err: () => undefined,
      progressTty: false,
    });
    const checks = JSON.parse(out.join('\n')) as Array<{
      check: string;
      status: string;
      detail: string;
      fix?: string;
      ageSeconds?: number;
      thresholdSeconds?: number;
    }>;
    return { code, status: Object.fromEntries(checks.map((c) => [c.check, c.status])), checks };
  }

  it('passes a healthy deployment', async () => {
    const { code, status, checks } = await doctor();
    // On AWS the CLI cannot read the stack's providers: the sync check says where SYNC_PROVIDERS comes from.
    expect(checks.find((c) => c.check === 'sync settings')).toMatchObject({
      status: 'skip',
      detail: expect.stringContaining('set SYNC_PROVIDERS from the stack output SyncProviders'),
    });
    expect(status).toMatchObject({
      'inbox TTL': 'pass',
      'suppression table protection': 'pass',
      'SES subscription': 'pass',
      'alarm subscribers': 'pass',
      'credentials ses': 'pass',
      'sender reputation': 'pass',
    });
    expect(code).toBe(0);
  });

  it('fails a pending SNS subscription, an alarm topic nobody confirmed, and a table without PITR', async () => {
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: TOPIC }).resolves({
      Subscriptions: [
        {
          Protocol: 'https',
          Endpoint: 'https://api.example.com/webhooks/ses',
          SubscriptionArn: 'PendingConfirmation',
        },
      ],
    });
    sns.on(ListSubscriptionsByTopicCommand, { TopicArn: ALARM_TOPIC }).resolves({
      Subscriptions: [{ Protocol: 'email', Endpoint: 'ops@example.com', SubscriptionArn: 'PendingConfirmation' }],
    });
    dynamo.on(DescribeContinuousBackupsCommand).resolves({
      ContinuousBackupsDescription: {
        ContinuousBackupsStatus: 'ENABLED',
        PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' },
      },
    });
    dynamo.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    const { code, status, checks } = await doctor();
    expect(code).toBe(1);
    expect(status).toMatchObject({
      'inbox TTL': 'fail',
      'suppression table protection': 'fail',
      'SES subscription': 'fail',
      'alarm subscribers': 'fail',
    });
    expect(checks.find((c) => c.check === 'SES subscription')).toMatchObject({
      detail: 'PendingConfirmation for https://api.example.com/webhooks/ses',
    });
    expect(checks.find((c) => c.check === 'suppression table protection')).toMatchObject({
      detail: 'point-in-time recovery off',
    });
  });

  describe("the oldest message's age, from CloudWatch", () => {
    const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
    async function doctorAt() {
      const out: string[] = [];
      const code = await ratchetCommand(
        ['doctor', '--json'],
        env,
        { out: (l) => out.push(l), err: () => undefined, progressTty: false },
        () => NOW,
      );
      const checks = JSON.parse(out.join('\n')) as Array<{
        check: string;
        status: string;
        detail: string;
        fix?: string;
        ageSeconds?: number;
        thresholdSeconds?: number;
      }>;
      return { code, age: (name: string) => checks.find((c) => c.check === name)! };
    }
    /** The newest Maximum per queue name; a queue not named has no datapoints (idle). */
    let ages: Record<string, number>;
    beforeEach(() => {
      ages = {};
      cloudwatch.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => {
        const seconds = ages[input.MetricDataQueries![0]!.MetricStat!.Metric!.Dimensions![0]!.Value!];
        // Newest first (ScanBy TimestampDescending). The older point is over the threshold: a backlog since drained.
        return {
          MetricDataResults: [
            {
              Id: 'age',
              Values: seconds === undefined ? [] : [seconds, 2 * ALARMS.queueAgeSeconds],
              Timestamps: seconds === undefined ? [] : [new Date(NOW - 300_000), new Date(NOW - 600_000)],
            },
          ],
        };
      });
    });
    const ageOf = (queue: string, seconds: number) => {
      ages[queue] = seconds;
    };

    it("reads the alarm's metric the alarm's way: AWS/SQS ApproximateAgeOfOldestMessage, Maximum per alarm period, by queue name", async () => {
      await doctorAt();
      const queried = cloudwatch.commandCalls(GetMetricDataCommand).map((call) => call.args[0].input);
      expect(queried.map((q) => q.MetricDataQueries![0]!.MetricStat!.Metric!.Dimensions)).toEqual([
        [{ Name: 'QueueName', Value: 'ratchet-events' }],
        [{ Name: 'QueueName', Value: 'ratchet-events-dlq' }],
        [{ Name: 'QueueName', Value: 'ratchet-ses-dead-letters' }],
      ]);
      for (const q of queried) {
        expect(q.MetricDataQueries![0]!.MetricStat).toMatchObject({
          Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateAgeOfOldestMessage' },
          Period: ALARMS.periodSeconds,
          Stat: 'Maximum',
        });
        expect(q.EndTime).toEqual(new Date(NOW));
        expect(NOW - q.StartTime!.getTime()).toBeLessThanOrEqual(15 * 60_000);
      }
    });

    it('a message as old as the alarm threshold fails, with the fix; the age is in --json', async () => {
      ageOf('ratchet-events', ALARMS.queueAgeSeconds);
      const { code, age } = await doctorAt();
      expect(code).toBe(1);
      expect(age('queue age')).toMatchObject({
        status: 'fail',
        ageSeconds: ALARMS.queueAgeSeconds,
        thresholdSeconds: ALARMS.queueAgeSeconds,
        detail: 'oldest message 30 min old (alarm at 30 min)',
      });
      expect(age('queue age').fix).toMatch(/consumer/);
    });

    it('a young message passes: the newest datapoint counts, not an older backlog since drained', async () => {
      ageOf('ratchet-events', ALARMS.queueAgeSeconds - 1);
      ageOf('ratchet-events-dlq', 42);
      const { code, age } = await doctorAt();
      expect(code).toBe(0);
      expect(age('queue age')).toMatchObject({ status: 'pass', ageSeconds: ALARMS.queueAgeSeconds - 1 });
      expect(age('dead-letter queue age')).toMatchObject({
        status: 'pass',
        ageSeconds: 42,
        detail: 'oldest message 42 s old (alarm at 30 min)',
      });
    });

    it('an old message in the SES dead-letter queue fails with its own fix', async () => {
      ageOf('ratchet-ses-dead-letters', 3 * 3600 + 120);
      const { age } = await doctorAt();
      expect(age('SES dead-letter queue age')).toMatchObject({
        status: 'fail',
        ageSeconds: 10_920,
        detail: 'oldest message 3 h 2 min old (alarm at 30 min)',
      });
      expect(age('SES dead-letter queue age').fix).toMatch(/^`ratchet ses redrive`/);
    });

    it('no datapoints (an idle queue) is a pass: no messages', async () => {
      const { code, age } = await doctorAt();
      expect(code).toBe(0);
      for (const name of ['queue age', 'dead-letter queue age', 'SES dead-letter queue age']) {
        expect(age(name)).toMatchObject({ status: 'pass', detail: 'no messages (alarm at 30 min)' });
        expect(age(name).ageSeconds).toBeUndefined();
      }
    });

    it('CloudWatch AccessDenied is a warning naming the IAM action to add, not a failure', async () => {
      const denied = Object.assign(new Error('User is not authorized to perform: cloudwatch:GetMetricData'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400 },
      });
      cloudwatch.on(GetMetricDataCommand).rejects(denied);
      const { code, age } = await doctorAt();
      expect(code).toBe(0);
      expect(age('queue age')).toMatchObject({
        status: 'warn',
        detail: 'not checked: CloudWatch refused cloudwatch:GetMetricData',
        fix: 'allow cloudwatch:GetMetricData to the identity running doctor',
      });
    });

    it('any other CloudWatch error is a warning with its cause', async () => {
      cloudwatch
        .on(GetMetricDataCommand)
        .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
      const { age } = await doctorAt();
      expect(age('dead-letter queue age')).toMatchObject({ status: 'warn', detail: 'not checked: Rate exceeded' });
    });
  });
});
