/**
 * How old the oldest message in a queue is, for `ratchet doctor`, without touching the messages: a
 * receive would count toward the queue's maxReceiveCount and push events toward the DLQ. SQS's own API
 * does not report it. On AWS it is the CloudWatch metric `ApproximateAgeOfOldestMessage` (the one the
 * queue-age alarm watches); fauxqs, the local runtime's SQS, lists its messages with their send times on
 * a read-only inspection endpoint. Any other SQS endpoint cannot be measured, and that is the answer.
 */
import { type CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';

export type QueueAge =
  /** `at`: when CloudWatch measured it (epoch ms); absent when measured just now. */
  | { kind: 'age'; seconds: number; at?: number }
  /** No message in the queue (CloudWatch: no datapoint, which SQS stops sending for an idle queue). */
  | { kind: 'idle' }
  | { kind: 'unmeasurable'; why: string };

export interface QueueAgeSource {
  oldest(queueUrl: string): Promise<QueueAge>;
}

/** The queue name is the last segment of its URL (CloudWatch's `QueueName` dimension, fauxqs's key). */
export function queueNameOf(queueUrl: string): string {
  return decodeURIComponent(queueUrl.split(/[?#]/)[0]!.split('/').filter(Boolean).at(-1) ?? '');
}

/**
 * The newest `Maximum` datapoint over `periodSeconds`: what the alarm compares with its threshold.
 * Throws the SDK's error as is (the CLI tells an AccessDenied, which needs an IAM action, from others).
 */
export class CloudWatchQueueAge implements QueueAgeSource {
  constructor(
    private readonly client: CloudWatchClient,
    private readonly periodSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async oldest(queueUrl: string): Promise<QueueAge> {
    const end = this.now();
    // Three periods back, so the last complete period is in the window even when the current one has no point yet.
    const { MetricDataResults } = await this.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(end - 3 * this.periodSeconds * 1000),
        EndTime: new Date(end),
        ScanBy: 'TimestampDescending',
        MetricDataQueries: [
          {
            Id: 'age',
            ReturnData: true,
            MetricStat: {
              Metric: {
                Namespace: 'AWS/SQS',
                MetricName: 'ApproximateAgeOfOldestMessage',
                Dimensions: [{ Name: 'QueueName', Value: queueNameOf(queueUrl) }],
              },
              Period: this.periodSeconds,
              Stat: 'Maximum',
            },
          },
        ],
      }),
    );
    const result = MetricDataResults?.find((r) => r.Id === 'age');
    const newest = result?.Values?.[0];
    if (newest === undefined) return { kind: 'idle' };
    return { kind: 'age', seconds: Math.round(newest), at: result?.Timestamps?.[0]?.getTime() };
  }
}

/** fauxqs 1.x: `GET /_fauxqs/queues/<name>` lists ready, delayed and in-flight messages, and changes nothing. */
export class FauxqsQueueAge implements QueueAgeSource {
  constructor(
    private readonly endpoint: string,
    private readonly now: () => number = Date.now,
  ) {}

  async oldest(queueUrl: string): Promise<QueueAge> {
    const unmeasurable = { kind: 'unmeasurable', why: `${this.endpoint} has no fauxqs inspection endpoint` } as const;
    let body: unknown;
    try {
      const response = await fetch(
        new URL(`/_fauxqs/queues/${encodeURIComponent(queueNameOf(queueUrl))}`, this.endpoint),
        {
          signal: AbortSignal.timeout(5_000),
        },
      );
      if (!response.ok) return unmeasurable;
      body = await response.json();
    } catch {
      return unmeasurable;
    }
    const messages = (body as { messages?: { ready?: unknown; delayed?: unknown; inflight?: unknown } } | null)
      ?.messages;
    if (!messages || !Array.isArray(messages.ready) || !Array.isArray(messages.inflight)) return unmeasurable;
    const waiting = [...messages.ready, ...(Array.isArray(messages.delayed) ? messages.delayed : [])] as Array<{
      sentTimestamp?: unknown;
    }>;
    const received = (messages.inflight as Array<{ message?: { sentTimestamp?: unknown } }>).map(
      (entry) => entry.message ?? {},
    );
    const all = [...waiting, ...received];
    if (all.length === 0) return { kind: 'idle' };
    let oldest = Number.POSITIVE_INFINITY;
    for (const message of all) {
      if (typeof message.sentTimestamp === 'number' && message.sentTimestamp < oldest) oldest = message.sentTimestamp;
    }
    // Messages without send times: a fauxqs we do not know; "idle" would be a false pass.
    if (oldest === Number.POSITIVE_INFINITY)
      return { kind: 'unmeasurable', why: `${this.endpoint} lists messages without send times` };
    return { kind: 'age', seconds: Math.max(0, Math.floor((this.now() - oldest) / 1000)) };
  }
}
