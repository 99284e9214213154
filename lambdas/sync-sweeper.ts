/**
 * Lambda entry: the sync sweeper, run every minute by an EventBridge schedule. It re-sends every
 * change whose outbox marker is due (its fast-path message was lost: the writer died between the put
 * and the send), and never calls a provider itself.
 */
import { createDocumentClient, createSqsClient } from './adapters/aws-clients.js';
import { DynamoSuppressionSync } from './adapters/dynamodb-suppression-sync.js';
import { SqsSyncQueue } from './adapters/sqs-sync-queue.js';
import { configFromEnv } from './adapters/wiring/config.js';
import { SWEEP_LEASE_MS, SYNC_QUEUE_VARIABLES } from './adapters/wiring/sync.js';
import { syncSettings } from './core/sync/settings.js';
import { sweepMessages } from './core/sync/sweep.js';

const config = configFromEnv(process.env);
const ledger = new DynamoSuppressionSync(createDocumentClient(config), config.suppressionTable);
const queue = new SqsSyncQueue(createSqsClient(config), () => config.settings[SYNC_QUEUE_VARIABLES.queueUrl] ?? '');
const { providers } = syncSettings(config.settings);

export async function handler(): Promise<{ sent: number }> {
  let sent = 0;
  const now = Date.now();
  await ledger.pending(now, async (items) => {
    const messages = sweepMessages(items, providers);
    await queue.send(messages);
    sent += messages.length;
    await Promise.all(items.map((i) => ledger.postpone(i.email, i.due, now + SWEEP_LEASE_MS)));
  });
  if (sent > 0) console.log(JSON.stringify({ level: 'INFO', message: 'sync sweep re-sent pending changes', sent }));
  return { sent };
}
