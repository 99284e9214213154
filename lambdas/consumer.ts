/** Lambda entry: the consumer (SQS event source with ReportBatchItemFailures). */
import { createDocumentClient, createSqsClient } from './adapters/aws-clients.js';
import { RUNTIME_VARIABLE } from './adapters/environment.js';
import { powertoolsCounters, powertoolsLog } from './adapters/observability.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { buildConsumerDeps } from './adapters/wiring/consumer.js';
import { syncFastPath, syncQueuesFromEnv } from './adapters/wiring/sync-fast-path.js';
import { createConsumerHandler } from './handlers/consumer-handler.js';

const config = configFromEnv(process.env);
// One log and one set of counters for the handler and its fast path, so a failed send is logged and
// counted (SyncFastPathFailed) with the invocation that made the change.
const log = powertoolsLog('ratchet-consumer', config.settings[RUNTIME_VARIABLE.logLevel]);
const counters = powertoolsCounters('ratchet-consumer', 'Ratchet');
// With SYNC_PROVIDERS and SYNC_QUEUE_URL set, a write that changes what providers should hold also sends the fast path.
const onSyncChange = syncFastPath(config, { sqs: createSqsClient(config) }, syncQueuesFromEnv(config.settings), {
  log,
  counters,
});
export const handler = createConsumerHandler(
  buildConsumerDeps(config, { doc: createDocumentClient(config) }, { onSyncChange, log, counters }),
);
