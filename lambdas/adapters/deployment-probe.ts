/**
 * Read-only probes of a deployment for `ratchet doctor`: table settings, queue depths, the age of
 * each queue's oldest message (queue-age.ts) and SNS subscriptions. Each answers a plain fact; the
 * CLI decides what is healthy. An emulator that lacks an API (dynalite has no TTL or backups API)
 * answers `undefined`, never a failure.
 */
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ListSubscriptionsByTopicCommand, type SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueAge, QueueAgeSource } from './queue-age.js';

const UNSUPPORTED = new Set(['UnknownOperationException', 'UnrecognizedClientException', 'InvalidAction']);
const unsupported = (error: unknown) =>
  error instanceof Error && (UNSUPPORTED.has(error.name) || /not (implemented|supported)/i.test(error.message));

export class DeploymentProbe {
  constructor(
    private readonly clients: { dynamo: DynamoDBClient; sqs: SQSClient; sns?: SNSClient; queueAge?: QueueAgeSource },
  ) {}

  /** Throws when the table does not exist or cannot be reached. */
  async table(name: string): Promise<{ deletionProtection?: boolean }> {
    const { Table } = await this.clients.dynamo.send(new DescribeTableCommand({ TableName: name }));
    return { deletionProtection: Table?.DeletionProtectionEnabled };
  }

  async ttlEnabled(table: string): Promise<boolean | undefined> {
    try {
      const { TimeToLiveDescription } = await this.clients.dynamo.send(
        new DescribeTimeToLiveCommand({ TableName: table }),
      );
      return TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED';
    } catch (error) {
      if (unsupported(error)) return undefined;
      throw error;
    }
  }

  async pointInTimeRecovery(table: string): Promise<boolean | undefined> {
    try {
      const { ContinuousBackupsDescription } = await this.clients.dynamo.send(
        new DescribeContinuousBackupsCommand({ TableName: table }),
      );
      return ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus === 'ENABLED';
    } catch (error) {
      if (unsupported(error)) return undefined;
      throw error;
    }
  }

  /** Visible and in-flight messages, from SQS's own counters; `queue` is a URL or a queue name. */
  async queueDepth(queue: string): Promise<{ url: string; visible: number; inFlight: number }> {
    const url = /^https?:\/\//.test(queue)
      ? queue
      : (await this.clients.sqs.send(new GetQueueUrlCommand({ QueueName: queue }))).QueueUrl!;
    const { Attributes } = await this.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return {
      url,
      visible: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
    };
  }

  /** The oldest message's age, measured without receiving anything; unmeasurable without a source. */
  async oldestMessage(queueUrl: string): Promise<QueueAge> {
    if (!this.clients.queueAge) return { kind: 'unmeasurable', why: 'no way to measure it here' };
    return this.clients.queueAge.oldest(queueUrl);
  }

  /** Each subscription's endpoint and whether it is confirmed (SNS shows `PendingConfirmation` as its ARN until then). */
  async subscriptions(topicArn: string): Promise<Array<{ endpoint: string; protocol: string; confirmed: boolean }>> {
    if (!this.clients.sns) throw new Error('no SNS client');
    const out: Array<{ endpoint: string; protocol: string; confirmed: boolean }> = [];
    let token: string | undefined;
    do {
      const page = await this.clients.sns.send(
        new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: token }),
      );
      for (const s of page.Subscriptions ?? []) {
        out.push({
          endpoint: s.Endpoint ?? '',
          protocol: s.Protocol ?? '',
          confirmed: !!s.SubscriptionArn && s.SubscriptionArn.startsWith('arn:'),
        });
      }
      token = page.NextToken;
    } while (token);
    return out;
  }
}
