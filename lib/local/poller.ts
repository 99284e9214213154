/**
 * Feeds SQS batches to a handler (the consumer, or the SES feed) the way the Lambda event source mapping does: receive up to 10,
 * invoke, delete only the successes (ReportBatchItemFailures), let failures become visible again, and
 * move a message to the DLQ once it has been received `maxReceiveCount` times. The queue also carries
 * the same RedrivePolicy as in AWS; moving it here as well keeps emulators without redrive honest.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { CONSUMER, QUEUE } from '../definitions.js';
import { LOCAL_QUEUE } from './bootstrap.js';
import { sqsEvent } from './sqs-event.js';

/** What the Lambda runtime would invoke for the event source: the consumer's or the SES feed's handler. */
export type BatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

export interface PollerOptions {
  client: SQSClient;
  queueUrl: string;
  deadLetterUrl: string;
  deadLetterArn: string;
  /** The polled queue's ARN, for the records' eventSourceARN. Default: the dead-letter ARN without `-dlq`. */
  sourceArn?: string;
  handler: BatchHandler;
  /** Messages per ReceiveMessage (at most 10). Default: the consumer's. */
  batchSize?: number;
  /**
   * How long a received message stays hidden, instead of the queue's own visibility timeout (sized for
   * Lambda's timeouts). Locally a batch takes milliseconds, so a short one brings back what a killed
   * process had in flight within seconds rather than minutes.
   */
  visibilityTimeoutSeconds?: number;
  /** Parallel receive loops, like the event source's maximum concurrency. */
  concurrency?: number;
  /** Locally a failed message comes back after this, instead of the full visibility timeout. */
  retryDelaySeconds?: number;
  maxReceiveCount?: number;
  region: string;
  onError?: (error: unknown) => void;
}

export class QueuePoller {
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const concurrency = this.options.concurrency ?? CONSUMER.maxConcurrency;
    this.loops = Array.from({ length: concurrency }, () => this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** One receive → invoke → settle round. Returns how many messages it handled. */
  async pollOnce(waitTimeSeconds = 0): Promise<number> {
    const { client, queueUrl } = this.options;
    const received = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: this.options.batchSize ?? CONSUMER.batchSize,
        WaitTimeSeconds: waitTimeSeconds,
        ...(this.options.visibilityTimeoutSeconds === undefined
          ? {}
          : { VisibilityTimeout: this.options.visibilityTimeoutSeconds }),
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp', 'ApproximateFirstReceiveTimestamp'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return 0;
    let failedIds: Set<string>;
    try {
      const response = await this.options.handler(this.toEvent(messages));
      failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A thrown handler fails the whole batch, as in Lambda.
      this.options.onError?.(error);
      failedIds = new Set(messages.map((m) => m.MessageId!));
    }
    await this.settle(messages, failedIds);
    return messages.length;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        await this.pollOnce(1);
      } catch (error) {
        if (!this.running) return;
        this.options.onError?.(error);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async settle(messages: Message[], failedIds: Set<string>): Promise<void> {
    const { client, queueUrl } = this.options;
    const maxReceives = this.options.maxReceiveCount ?? LOCAL_QUEUE.maxReceiveCount;
    const done = messages.filter((m) => !failedIds.has(m.MessageId!));
    const failed = messages.filter((m) => failedIds.has(m.MessageId!));
    const exhausted = failed.filter((m) => Number(m.Attributes?.ApproximateReceiveCount ?? '1') >= maxReceives);
    const retry = failed.filter((m) => !exhausted.includes(m));

    for (const message of exhausted) {
      await client.send(new SendMessageCommand({ QueueUrl: this.options.deadLetterUrl, MessageBody: message.Body! }));
    }
    const toDelete = [...done, ...exhausted];
    if (toDelete.length > 0) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: toDelete.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    if (retry.length > 0) {
      await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: retry.map((m, i) => ({
            Id: String(i),
            ReceiptHandle: m.ReceiptHandle!,
            VisibilityTimeout: this.options.retryDelaySeconds ?? LOCAL_QUEUE.retryDelaySeconds,
          })),
        }),
      );
    }
  }

  private toEvent(messages: Message[]): SQSEvent {
    const sourceArn =
      this.options.sourceArn ?? this.options.deadLetterArn.replace(new RegExp(`${QUEUE.deadLetterSuffix}$`), '');
    return sqsEvent(messages, sourceArn, this.options.region);
  }
}
