/**
 * Reading and emptying a dead-letter queue, for the operator CLI (`ratchet ses redrive`, `ratchet dlq`).
 * Each message is taken out of sight while it is handled, deleted only when the caller says it was
 * dealt with, and otherwise made visible again at once, so an interrupted run loses nothing.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { SQS_BATCH_MAX } from './sqs-limits.js';

export interface DeadLetter {
  id: string;
  body: string;
  /** How many times the message was received (from its source queue, and here). */
  receiveCount: number;
  /** When it was first sent (epoch ms). */
  sentAt?: number;
  /** Message attributes as strings (the consumer's recorded error, when it left one). */
  attributes: Record<string, string>;
  receipt: string;
}

/**
 * How long a receive waits for a message when none is visible: a long poll. A short one (0) is answered
 * from a sample of SQS's servers, and may come back empty while messages wait, which a caller reading
 * until the first empty answer takes for "none left" (a count of 0, a redrive that stops with messages
 * left). One second keeps an empty queue's answer quick, for an operator and in tests alike.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-short-and-long-polling.html
 */
export const DEAD_LETTER_LONG_POLL_SECONDS = 1;

export class SqsDeadLetters {
  private url?: string;

  /** `queue` is a queue URL or a queue name (looked up with GetQueueUrl). */
  constructor(
    private readonly client: SQSClient,
    private readonly queue: string,
  ) {}

  async queueUrl(): Promise<string> {
    if (this.url) return this.url;
    if (/^https?:\/\//.test(this.queue)) this.url = this.queue;
    else this.url = (await this.client.send(new GetQueueUrlCommand({ QueueName: this.queue }))).QueueUrl!;
    return this.url;
  }

  async arn(): Promise<string> {
    return (await this.attributes(['QueueArn'])).QueueArn!;
  }

  /** Visible messages (approximate, as SQS reports it). */
  async depth(): Promise<number> {
    return Number((await this.attributes(['ApproximateNumberOfMessages'])).ApproximateNumberOfMessages ?? 0);
  }

  /**
   * Up to 10 messages, hidden for `hideSeconds` while the caller handles them. Empty when none is visible.
   * A long poll by default (DEAD_LETTER_LONG_POLL_SECONDS): it asks every server, and waits that long only
   * when the queue is empty. `waitSeconds` 0 is a short poll, answered from a sample of SQS's servers: a
   * queue holding a few messages may answer empty (only for a caller that never reads the answer as "none").
   */
  async receive(hideSeconds: number, waitSeconds = DEAD_LETTER_LONG_POLL_SECONDS): Promise<DeadLetter[]> {
    const response = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: await this.queueUrl(),
        MaxNumberOfMessages: SQS_BATCH_MAX,
        WaitTimeSeconds: waitSeconds,
        VisibilityTimeout: hideSeconds,
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
        MessageAttributeNames: ['All'],
      }),
    );
    return (response.Messages ?? []).map((m) => ({
      id: m.MessageId ?? '',
      body: m.Body ?? '',
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 0),
      sentAt: m.Attributes?.SentTimestamp ? Number(m.Attributes.SentTimestamp) : undefined,
      attributes: Object.fromEntries(
        Object.entries(m.MessageAttributes ?? {}).flatMap(([k, v]) =>
          v.StringValue !== undefined ? [[k, v.StringValue]] : [],
        ),
      ),
      receipt: m.ReceiptHandle ?? '',
    }));
  }

  async delete(message: DeadLetter): Promise<void> {
    await this.client.send(
      new DeleteMessageCommand({ QueueUrl: await this.queueUrl(), ReceiptHandle: message.receipt }),
    );
  }

  /** Visible again now: the message stays in the queue for the next run or for inspection. */
  async release(message: DeadLetter): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: await this.queueUrl(),
        ReceiptHandle: message.receipt,
        VisibilityTimeout: 0,
      }),
    );
  }

  /** Sends the body to another queue, then deletes it here (at-least-once: a crash between the two duplicates it, never loses it). */
  async moveTo(message: DeadLetter, targetUrl: string): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: targetUrl, MessageBody: message.body }));
    await this.delete(message);
  }

  /** AWS's own redrive (back to the source queue). Emulators do not have it. Returns the task handle. */
  async startMoveTask(): Promise<string> {
    const response = await this.client.send(new StartMessageMoveTaskCommand({ SourceArn: await this.arn() }));
    return response.TaskHandle ?? '';
  }

  /** The latest move task's progress: status and how many moved out of how many. */
  async moveTaskStatus(): Promise<{ status: string; moved: number; total?: number; failure?: string } | undefined> {
    const response = await this.client.send(
      new ListMessageMoveTasksCommand({ SourceArn: await this.arn(), MaxResults: 1 }),
    );
    const task = response.Results?.[0];
    if (!task) return undefined;
    return {
      status: task.Status ?? 'UNKNOWN',
      moved: task.ApproximateNumberOfMessagesMoved ?? 0,
      total: task.ApproximateNumberOfMessagesToMove,
      failure: task.FailureReason,
    };
  }

  private async attributes(names: Array<'QueueArn' | 'ApproximateNumberOfMessages'>): Promise<Record<string, string>> {
    const response = await this.client.send(
      new GetQueueAttributesCommand({ QueueUrl: await this.queueUrl(), AttributeNames: names }),
    );
    return response.Attributes ?? {};
  }
}
