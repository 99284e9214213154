/** Lambda entry: the consumer (SQS event source with ReportBatchItemFailures). */
import { createDocumentClient } from './adapters/aws-clients.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { buildConsumerDeps } from './adapters/wiring/consumer.js';
import { createConsumerHandler } from './handlers/consumer-handler.js';

const config = configFromEnv(process.env);
export const handler = createConsumerHandler(buildConsumerDeps(config, { doc: createDocumentClient(config) }));
