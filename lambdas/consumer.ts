/** Lambda entry: the consumer (SQS event source with ReportBatchItemFailures). */
import { buildConsumerDeps, configFromEnv, createClients } from './adapters/wiring.js';
import { createConsumerHandler } from './handlers/consumer-handler.js';

const config = configFromEnv(process.env);
export const handler = createConsumerHandler(buildConsumerDeps(config, createClients(config)));
