/** SQS batch (the SES feed) ⇄ the transport-neutral SES feed: failed records are reported, never thrown. */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { SesFeed } from '../core/pipeline/ses-feed.js';

export type SesFeedHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function createSesFeedHandler(feed: Pick<SesFeed, 'process'>): SesFeedHandler {
  return async (event) => {
    const failed = await feed.process(
      event.Records.map((record) => ({ messageId: record.messageId, body: record.body })),
    );
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
