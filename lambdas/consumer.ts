/** Lambda entry: the consumer (SQS event source with ReportBatchItemFailures). */
import { configFromEnv, createClients } from './adapters/wiring/config.js';
import { buildConsumerDeps } from './adapters/wiring/consumer.js';
import { createConsumerHandler } from './handlers/consumer-handler.js';

const config = configFromEnv(process.env);
export const handler = createConsumerHandler(buildConsumerDeps(config, createClients(config)));
