/** Lambda entry: the consumer (SQS event source with ReportBatchItemFailures). */
import { createDocumentClient, createSqsClient } from './adapters/aws-clients.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { buildConsumerDeps } from './adapters/wiring/consumer.js';
import { syncFastPath } from './adapters/wiring/sync-fast-path.js';
import { createConsumerHandler } from './handlers/consumer-handler.js';

const config = configFromEnv(process.env);
// With SYNC_PROVIDERS and SYNC_QUEUE_URL set, a write that changes what providers should hold also sends the fast path.
const onSyncChange = syncFastPath(config, { sqs: createSqsClient(config) });
export const handler = createConsumerHandler(
  buildConsumerDeps(config, { doc: createDocumentClient(config) }, { onSyncChange }),
);
