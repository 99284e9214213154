/**
 * The SES dead-letter queue as the SES feed writes to it: one SendMessageBatch for the messages of a
 * batch that can never be admitted. The body is the envelope exactly as it arrived, so `ratchet ses
 * redrive` replays it like anything SNS or the feed's redrive policy put there; the edge's error code
 * rides along as the `error` attribute (what `ratchet dlq` shows for the events queue too).
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FeedDeadLetter, FeedDeadLetterQueue } from '../core/pipeline/ses-feed.js';
import { SQS_BATCH_MAX } from './sqs-limits.js';

/** SendMessageBatch's limit; the feed's batches are never larger (SES_FEED.batchSize). */

export class SqsFeedDeadLetterQueue implements FeedDeadLetterQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: () => Promise<string> | string,
  ) {}

  async send(letters: readonly FeedDeadLetter[]): Promise<ReadonlySet<string>> {
    const unsent = new Set<string>();
    const queueUrl = await this.queueUrl();
    for (let start = 0; start < letters.length; start += SQS_BATCH_MAX) {
      const batch = letters.slice(start, start + SQS_BATCH_MAX);
      const response = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((letter, i) => ({
            Id: String(i),
            MessageBody: letter.body,
            MessageAttributes: {
              error: { DataType: 'String', StringValue: letter.code },
              source: { DataType: 'String', StringValue: 'ses-feed' },
            },
          })),
        }),
      );
      // A call that succeeds can still fail entries: those stay on the feed.
      for (const failed of response.Failed ?? []) {
        const letter = batch[Number(failed.Id)];
        if (letter) unsent.add(letter.messageId);
      }
    }
    return unsent;
  }
}
