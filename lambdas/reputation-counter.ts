/**
 * Lambda entry: the reputation counter, the inbox table stream's consumer (an event source mapping
 * with large batches, one copy per stream shard, reserved concurrency; docs/reputation.md).
 */
import { createDocumentClient } from './adapters/aws-clients.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { buildReputationCounter } from './adapters/wiring/reputation-counter.js';
import { createReputationCounterHandler } from './handlers/reputation-counter-handler.js';

const config = configFromEnv(process.env);
export const handler = createReputationCounterHandler(
  buildReputationCounter(config, { doc: createDocumentClient(config) }),
);
