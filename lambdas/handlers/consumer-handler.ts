/**
 * SQS batch → the transport-neutral consumer, with partial batch failures (only failed records retry).
 * One INFO line and one metrics flush per batch; per-event lines are DEBUG.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type ConsumerDeps, consumeMessage } from '../core/pipeline/consume.js';

export type ConsumerHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function createConsumerHandler(deps: ConsumerDeps): ConsumerHandler {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event) => {
    let written = 0;
    try {
      const response = await processPartialResponse(
        event,
        async (record: SQSRecord) => {
          try {
            if ((await consumeMessage(deps, record.body)).changed) written++;
          } catch (error) {
            // Which message failed and why: the batch line only counts them, and the DLQ keeps no reason.
            deps.log.error('record failed', {
              messageId: record.messageId,
              receiveCount: Number(record.attributes.ApproximateReceiveCount),
              error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
            });
            throw error;
          }
        },
        processor,
        // A batch where every record failed is reported like any other, rather than thrown: the event
        // source retries exactly the failed ids either way, and the local poller reads one shape.
        { throwOnFullBatchFailure: false },
      );
      const failed = response.batchItemFailures.length;
      const fields = { received: event.Records.length, applied: event.Records.length - failed, written, failed };
      if (failed > 0) deps.log.warn('batch applied with failures', fields);
      else deps.log.info('batch applied', fields);
      return response;
    } finally {
      deps.counters.flush?.();
    }
  };
}
