/** SQS batch → the transport-neutral consumer, with partial batch failures (only failed records retry). */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { consumeMessage, type ConsumerDeps } from '../core/pipeline/consume.js';

export type ConsumerHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function createConsumerHandler(deps: ConsumerDeps): ConsumerHandler {
  const processor = new BatchProcessor(EventType.SQS);
  return (event) =>
    processPartialResponse(event, (record: SQSRecord) => consumeMessage(deps, record.body), processor, {
      // A batch where every record failed is reported like any other, rather than thrown: the event
      // source retries exactly the failed ids either way, and the local poller reads one shape.
      throwOnFullBatchFailure: false,
    });
}
