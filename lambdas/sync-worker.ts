/** Lambda entry: the sync worker (SQS event source with ReportBatchItemFailures). */
import type { SQSEvent } from 'aws-lambda';
import { createDocumentClient, createSqsClient } from './adapters/aws-clients.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { buildSyncWorker, type SyncWorker, syncQueuesFromEnv } from './adapters/wiring/sync.js';
import { syncTargetSource } from './adapters/wiring/sync-secrets.js';
import type { SyncProviderName, SyncTarget } from './core/sync/target.js';

const config = configFromEnv(process.env);
const clients = { doc: createDocumentClient(config), sqs: createSqsClient(config) };
const queues = syncQueuesFromEnv(config.settings);
const targets = syncTargetSource(config.settings, {
  region: config.region,
  cacheMs: config.secretsCacheSeconds * 1000,
});
let worker: { targets: ReadonlyMap<SyncProviderName, SyncTarget>; worker: SyncWorker } | undefined;

export async function handler(event: SQSEvent) {
  if (!queues) throw new Error('SYNC_QUEUE_URL is not set');
  const current = await targets();
  // Built once per set of keys: the gates (and their 429 pauses) live as long as the targets do.
  if (worker?.targets !== current)
    worker = { targets: current, worker: buildSyncWorker(config, clients, queues, current) };
  return worker.worker.handler(event);
}
