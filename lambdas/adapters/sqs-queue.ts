/** The event queue: SendMessageBatch in chunks of 10 (the SQS maximum), a few chunks in flight at once. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { TransientError } from '../core/errors.js';
import { chunk, settleWithLimit } from '../core/pipeline/concurrency.js';
import type { EventQueue, QueuedEvent } from '../core/pipeline/ports.js';
import { sqsJson } from '../core/sqs-body.js';
import { SQS_BATCH_MAX } from './sqs-limits.js';

const CHUNKS_IN_FLIGHT = 8;

export class SqsEventQueue implements EventQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: () => Promise<string> | string,
  ) {}

  async send(messages: readonly QueuedEvent[]): Promise<void> {
    const queueUrl = await this.queueUrl();
    const results = await settleWithLimit(chunk(messages, SQS_BATCH_MAX), CHUNKS_IN_FLIGHT, async (batch) => {
      const response = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((message, i) => ({ Id: String(i), MessageBody: sqsJson(message) })),
        }),
      );
      // SendMessageBatch can succeed as a call while failing entries: that is a failure too.
      if (response.Failed && response.Failed.length > 0) {
        throw new Error(`${response.Failed.length} entries failed: ${response.Failed[0]?.Code ?? 'unknown'}`);
      }
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw new TransientError('SendMessageBatch failed', { cause: failed.reason });
  }
}
