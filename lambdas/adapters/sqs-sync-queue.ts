/**
 * The sync queue and its dead letters (`<resourcePrefix>-sync` and `<resourcePrefix>-sync-dead-letters`):
 * send one message per (address, provider), hide a message until its next attempt, and dead-letter
 * one with the reason as a message attribute. The worker dead-letters by time itself (see
 * core/sync/retry.ts), so the queue's own redrive policy is only a backstop for a message that
 * crashes the worker every time.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { chunk, settleWithLimit } from '../core/pipeline/concurrency.js';
import { encodeSyncMessage, type SyncMessage, SyncSendError } from '../core/sync/message.js';
import { SQS_BATCH_MAX } from './sqs-limits.js';

/** SQS caps a message's visibility at 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;
/** SQS caps a message's delay at 15 minutes. */
const MAX_DELAY_SECONDS = 900;

export class SqsSyncQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: () => Promise<string> | string,
    private readonly deadLetterUrl?: () => Promise<string> | string,
  ) {}

  /**
   * Throws SyncSendError, naming the messages SQS did not take, when any was not (the others are queued).
   * `abortSignal` ends every call still waiting (their messages count as not taken, though SQS may have
   * queued them: a second message is a repeat the worker tells apart, a lost one is not).
   */
  async send(messages: readonly SyncMessage[], options: { abortSignal?: AbortSignal } = {}): Promise<void> {
    if (messages.length === 0) return;
    const url = await this.queueUrl();
    const unsent: SyncMessage[] = [];
    const results = await settleWithLimit(chunk(messages, SQS_BATCH_MAX), 4, async (batch) => {
      let response: SendMessageBatchCommandOutput;
      try {
        response = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: batch.map((m, i) => ({ Id: String(i), MessageBody: encodeSyncMessage(m) })),
          }),
          options.abortSignal ? { abortSignal: options.abortSignal } : {},
        );
      } catch (error) {
        unsent.push(...batch);
        throw error;
      }
      // A call that succeeds may still fail entries: those, and only those, were not sent.
      const refused = response.Failed ?? [];
      if (refused.length > 0) {
        unsent.push(...refused.flatMap((entry) => batch[Number(entry.Id)] ?? []));
        throw new Error(`${refused.length} entries failed: ${refused[0]?.Code ?? 'unknown'}`);
      }
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw new SyncSendError(unsent, { cause: failed.reason });
  }

  /** Messages on the queue (SQS's approximate counts): visible, and with those in flight and delayed. */
  async depth(): Promise<{ visible: number; total: number }> {
    const { Attributes: a = {} } = await this.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: await this.queueUrl(),
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    const visible = Number(a.ApproximateNumberOfMessages ?? 0);
    return {
      visible,
      total:
        visible +
        Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
        Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  }

  /** The same body as a fresh message (receive count 1), delivered after `delaySeconds`, at most 15 minutes. */
  async resend(body: string, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: await this.queueUrl(),
        MessageBody: body,
        DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))),
      }),
    );
  }

  /** The message comes back after `seconds` (its next attempt). */
  async hide(receiptHandle: string, seconds: number): Promise<void> {
    const timeout = Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(seconds)));
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: await this.queueUrl(),
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: timeout,
      }),
    );
  }

  async deadLetter(body: string, reason: { provider: string; error: string }): Promise<void> {
    if (!this.deadLetterUrl) throw new Error('no sync dead-letter queue configured');
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: await this.deadLetterUrl(),
        MessageBody: body,
        MessageAttributes: {
          provider: { DataType: 'String', StringValue: reason.provider },
          error: { DataType: 'String', StringValue: reason.error.slice(0, 256) || 'unknown' },
        },
      }),
    );
  }
}
