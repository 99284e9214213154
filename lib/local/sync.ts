/**
 * Sync on one machine, the way AWS runs it: the sync queue and its dead letters on the same SQS
 * endpoint, a poller feeding the same worker handler the Lambda runs (ReportBatchItemFailures: it
 * deletes only what the handler finished, and leaves a failure hidden for exactly as long as the
 * handler asked), and the sweeper on an interval. The sweeper also runs once at start over every
 * pending item, due or not: the embedded queue forgets its messages when the process stops, while the
 * outbox marker is in DynamoDB (dynalite on disk) and survives.
 */

import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
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
import { sqsEvent } from './sqs-event.js';

/** A sweep stops taking pages this long after it started, like the Lambda's deadline inside its 60 s timeout. */
const SWEEP_DEADLINE_MS = 40_000;

/**
 * How long the poller waits before asking again while it fills a batch: ten receives a second at most,
 * where Lambda's pollers wait on SQS's side. Also after a receive that brought some but not enough, so
 * a queue fed a few messages at a time fills the batch in a few receives, not one receive a message.
 */
const GATHER_PAUSE_MS = 100;

export interface LocalSync {
  worker: SyncWorker;
  queueUrl: string;
  deadLetterUrl: string;
  /** The consumer's fast path. */
  fastPath: (email: string) => Promise<void>;
  /** One receive → push → settle round; how many messages it handled. */
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
  let loops: Promise<void>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();

  const receive = async (max: number, waitSeconds: number) =>
    (
      await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: max,
          WaitTimeSeconds: waitSeconds,
          VisibilityTimeout: SYNC_QUEUE.visibilityTimeoutSeconds,
          MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
        }),
      )
    ).Messages ?? [];

  const pollOnce = async (waitSeconds = 0): Promise<number> => {
    const messages = await receive(SYNC_WORKER.batchSize, waitSeconds);
    if (messages.length === 0) return 0;
    // The event source mapping's batching window: a batch goes to the handler when it is full or the
    // window has passed since its first message, so a backlog is worked in full batches (one record
    // read and one delete per ten messages) as on AWS, not in whatever trickled in first.
    const windowEnds = Date.now() + SYNC_WORKER.maxBatchingWindowSeconds * 1000;
    while (messages.length < SYNC_WORKER.batchSize && Date.now() < windowEnds) {
      await new Promise((r) => setTimeout(r, Math.min(GATHER_PAUSE_MS, Math.max(0, windowEnds - Date.now()))));
      messages.push(...(await receive(SYNC_WORKER.batchSize - messages.length, 0)));
    }
    const response = await worker.handler(sqsEvent(messages, 'arn:aws:sqs:local:000000000000:sync', config.region));
    const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (done.length > 0) {
      await clients.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    return messages.length;
  };

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

  const loop = async () => {
    while (running) {
      try {
        await pollOnce(1);
      } catch (error) {
        if (!running) return;
        log.error('sync poller error', { error: String((error as Error)?.message ?? error) });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  // Everything pending that is not dead, due or not: the embedded queue lost whatever it held.
  await sweep(DEAD_DUE_MS - 1, { all: true });

  return {
    worker,
    queueUrl,
    deadLetterUrl,
    fastPath,
    pollOnce,
    sweep,
    start() {
      if (running) return;
      running = true;
      loops = Array.from({ length: options.concurrency ?? SYNC_WORKER.maxConcurrency }, loop);
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
      await Promise.all(loops);
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
