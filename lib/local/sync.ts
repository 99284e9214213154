/**
 * Sync on one machine, the way AWS runs it: the sync queue and its dead letters on the same SQS
 * endpoint, a poller feeding the same worker handler the Lambda runs (sync-poller.ts), and the sweeper
 * on an interval. The sweeper also runs once at start over every pending item, due or not: the embedded
 * queue forgets its messages when the process stops, while the outbox marker is in DynamoDB (dynalite
 * on disk) and survives.
 */

import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { RUNTIME_VARIABLE } from '../../lambdas/adapters/environment.js';
import { SYNC_ATTRIBUTE, SYNC_INDEX } from '../../lambdas/adapters/suppression-sync-fields.js';
import { buildSyncWorker, type SyncWorker, syncFastPath } from '../../lambdas/adapters/wiring/sync.js';
import type { Clients, RuntimeConfig } from '../../lambdas/adapters/wiring.js';
import type { Counters, Log } from '../../lambdas/core/pipeline/ports.js';
import { DEAD_DUE_MS } from '../../lambdas/core/sync/ledger.js';
import { syncSettings } from '../../lambdas/core/sync/settings.js';
import type { SyncProviderName, SyncTarget } from '../../lambdas/core/sync/target.js';
import { SUPPRESSION_TABLE } from '../definitions.js';
import { SYNC_QUEUE, SYNC_WORKER } from '../sync-definitions.js';
import { syncPoller } from './sync-poller.js';

/** A sweep stops taking pages this long after it started, like the Lambda's deadline inside its 60 s timeout. */
const SWEEP_DEADLINE_MS = 40_000;

export interface LocalSync {
  worker: SyncWorker;
  queueUrl: string;
  deadLetterUrl: string;
  /** The consumer's fast path. */
  fastPath: (email: string) => Promise<void>;
  /** One receive → push → settle round, its delete awaited; how many messages it handled. */
  pollOnce(waitSeconds?: number): Promise<number>;
  /** One sweep (backfill steps, then the due markers); `all` sends whatever the queue's depth. Returns how many were sent. */
  sweep(dueBefore?: number, options?: { all?: boolean }): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export interface LocalSyncOptions {
  config: RuntimeConfig;
  clients: Clients;
  targets: ReadonlyMap<SyncProviderName, SyncTarget>;
  log: Log;
  counters: Counters;
  /** Sweep interval, ms (default 60 s, like the EventBridge schedule on AWS). */
  sweepIntervalMs?: number;
  /** Receive loops (default SYNC_WORKER.maxConcurrency, the event source's limit on AWS). */
  concurrency?: number;
}

/** Undefined when SYNC_PROVIDERS is unset: nothing is synced, and no sync queue or index is created. */
export async function startLocalSync(options: LocalSyncOptions): Promise<LocalSync | undefined> {
  const { config, clients, log } = options;
  const settings = syncSettings(config.settings);
  if (settings.providers.length === 0) return undefined;
  const { queueUrl, deadLetterUrl } = await ensureSyncQueues(
    clients.sqs,
    config.settings[RUNTIME_VARIABLE.syncQueueName] || SYNC_QUEUE.defaultName,
  );
  const queues = { queueUrl: () => queueUrl, deadLetterUrl: () => deadLetterUrl };
  const worker = buildSyncWorker(config, clients, queues, options.targets, {
    log,
    counters: options.counters,
    scanWhenIndexMissing: true,
  });
  const fastPath = syncFastPath(config, clients, queues, { log, counters: options.counters })!;

  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();

  const poller = syncPoller({
    sqs: clients.sqs,
    queueUrl,
    region: config.region,
    invoke: (event) => worker.handler(event),
    log,
  });

  let sweepRunning = false;
  const sweep = async (dueBefore: number = Date.now(), options: { all?: boolean } = {}): Promise<number> => {
    // One sweep at a time, as the schedule on AWS has it in practice (a sweep ends well inside the interval).
    if (sweepRunning) return 0;
    sweepRunning = true;
    try {
      const now = Date.now();
      const report = await worker.sweeper.sweep({ dueBefore, deadline: now + SWEEP_DEADLINE_MS, all: options.all });
      if (report.sent > 0) log.info('sync sweep re-sent pending changes', { sent: report.sent });
      return report.sent;
    } finally {
      sweepRunning = false;
    }
  };

  // Everything pending that is not dead, due or not: the embedded queue lost whatever it held.
  await sweep(DEAD_DUE_MS - 1, { all: true });

  return {
    worker,
    queueUrl,
    deadLetterUrl,
    fastPath,
    pollOnce: (waitSeconds) => poller.pollOnce(waitSeconds),
    sweep,
    start() {
      if (running) return;
      running = true;
      poller.start(options.concurrency ?? SYNC_WORKER.maxConcurrency);
      timer = setInterval(() => {
        sweeping = sweep().catch((error: unknown) =>
          log.error('sync sweep failed', { error: String((error as Error)?.message ?? error) }),
        );
      }, options.sweepIntervalMs ?? 60_000);
      timer.unref();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      await poller.stop();
      await sweeping;
    },
  };
}

export async function ensureSyncQueues(
  client: SQSClient,
  name: string,
): Promise<{ queueUrl: string; deadLetterUrl: string }> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: `${name}${SYNC_QUEUE.deadLetterSuffix}`,
      Attributes: { MessageRetentionPeriod: String(14 * 86_400) },
    }),
  );
  const main = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(SYNC_QUEUE.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(14 * 86_400),
      },
    }),
  );
  return { queueUrl: main.QueueUrl!, deadLetterUrl: dlq.QueueUrl! };
}

/**
 * Creates the suppression table with the sparse `sync-due` index, before the runtime's own ensureTables
 * (which then finds it in place). dynalite cannot add an index to an existing table (UpdateTable has
 * no index creation there), so a `.data/` from before this table always had the index keeps its table,
 * and the sweeper falls back to a filtered scan of it (see DynamoSuppressionSync.pending). Created
 * whether or not sync is configured, so turning sync on later finds the index in place.
 */
export async function createSuppressionTableWithSyncIndex(client: DynamoDBClient, table: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: SUPPRESSION_TABLE.partitionKey, KeyType: 'HASH' }],
        AttributeDefinitions: [
          { AttributeName: SUPPRESSION_TABLE.partitionKey, AttributeType: 'S' },
          { AttributeName: SYNC_ATTRIBUTE.pending, AttributeType: 'S' },
          { AttributeName: SYNC_ATTRIBUTE.due, AttributeType: 'N' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: SYNC_INDEX.name,
            KeySchema: [
              { AttributeName: SYNC_INDEX.partitionKey, KeyType: 'HASH' },
              { AttributeName: SYNC_INDEX.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [SYNC_ATTRIBUTE.map, SYNC_ATTRIBUTE.change] },
          },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
  }
}
