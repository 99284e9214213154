/** Lambda entry: the reputation evaluator (an EventBridge rule every 5 minutes, reserved concurrency 1). */
import { createDocumentClient } from './adapters/aws-clients.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { buildReputationEvaluator } from './adapters/wiring/reputation.js';
import { createReputationHandler } from './handlers/reputation-handler.js';

const config = configFromEnv(process.env);
export const handler = createReputationHandler(buildReputationEvaluator(config, { doc: createDocumentClient(config) }));
