/**
 * Lambda entry: the sync sweeper, run every minute by an EventBridge schedule. Each provider's backfill
 * step, then every change whose outbox marker is due (its message was lost, or it was never sent) is
 * sent, within a budget the workers can drain and a deadline well inside the timeout. It never calls a
 * provider itself.
 */
import type { Context } from 'aws-lambda';
import { createDocumentClient, createSqsClient } from './adapters/aws-clients.js';
import { RUNTIME_VARIABLE } from './adapters/environment.js';
import { powertoolsLog } from './adapters/observability.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { syncQueuesFromEnv } from './adapters/wiring/sync.js';
import { buildSyncSweeper, type SweepReport } from './adapters/wiring/sync-sweeper.js';
import { SYNC_WORKER_MAX_CONCURRENCY } from './core/sync/settings.js';

/** Time kept back from the timeout: the last page's sends and lease writes finish inside it. */
export const DEADLINE_MARGIN_MS = 20_000;

const config = configFromEnv(process.env);
// Read as the consumer and the worker read it: a SYNC_QUEUE_URL that is no queue URL fails the cold start, naming it.
const queues = syncQueuesFromEnv(config.settings);
const log = powertoolsLog('ratchet-sync-sweeper', config.settings[RUNTIME_VARIABLE.logLevel]);
const sweeper = buildSyncSweeper(
  config,
  { doc: createDocumentClient(config), sqs: createSqsClient(config) },
  { queueUrl: queues?.queueUrl ?? (() => '') },
  // Its send budget counts every copy of the worker: a backlog past the booking horizon drains only through it.
  { log, workerCopies: SYNC_WORKER_MAX_CONCURRENCY },
);

export async function handler(
  _event: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SweepReport> {
  const now = Date.now();
  const remaining = context?.getRemainingTimeInMillis() ?? 60_000;
  const report = await sweeper.sweep({ dueBefore: now, deadline: now + Math.max(0, remaining - DEADLINE_MARGIN_MS) });
  if (report.sent > 0 || report.renewed > 0 || !report.complete)
    log.info('sync sweep', { sent: report.sent, renewed: report.renewed, complete: report.complete });
  return report;
}
