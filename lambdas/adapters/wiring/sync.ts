/**
 * The sync side's wiring, shared by the Lambdas (sync worker, sweeper, the consumer's fast path) and
 * the local runtime: settings, the suppression table's sync view, the sync queue, one rate gate per
 * provider, and the worker handler around the targets. The targets themselves (one SyncTarget per
 * configured provider) are built by the provider adapters and passed in.
 */

import type { Counters, Log } from '../../core/pipeline/ports.js';
import type { PushDeps } from '../../core/sync/push.js';
import {
  SYNC_BOOKING_HORIZON_MS,
  SYNC_MAX_HOLD_MS,
  type SyncSettings,
  syncSettings,
} from '../../core/sync/settings.js';
import { parseTopicAliases } from '../../core/topics.js';

export { SYNC_QUEUE_VARIABLES, type SyncQueues, syncFastPath, syncQueuesFromEnv } from './sync-fast-path.js';

import { letsMailThrough, type SyncProviderName, type SyncTarget } from '../../core/sync/target.js';
import { createSyncWorkerHandler, type SyncWorkerHandler } from '../../handlers/sync-worker-handler.js';
import { DynamoSuppressionSync } from '../dynamodb-suppression-sync.js';
import { DynamoSyncProviders } from '../dynamodb-sync-providers.js';
import { RUNTIME_VARIABLE } from '../environment.js';
import { powertoolsCounters, powertoolsLog } from '../observability.js';
import { SqsSyncQueue } from '../sqs-sync-queue.js';
import { ProviderBatcher } from '../sync-batcher.js';
import { ProviderGate } from '../sync-gate.js';
import type { Clients, RuntimeConfig } from './config.js';
import type { SyncQueues } from './sync-fast-path.js';
import { buildSyncSweeper, type SyncSweeper } from './sync-sweeper.js';

export interface SyncWorker {
  settings: SyncSettings;
  handler: SyncWorkerHandler;
  ledger: DynamoSuppressionSync;
  queue: SqsSyncQueue;
  providerFacts: DynamoSyncProviders;
  gates: Map<SyncProviderName, ProviderGate>;
  /** The sweeper beside the worker (the local runtime runs both in one process). */
  sweeper: SyncSweeper;
}

export function buildSyncWorker(
  config: RuntimeConfig,
  clients: Clients,
  queues: SyncQueues,
  targets: ReadonlyMap<SyncProviderName, SyncTarget>,
  overrides: {
    log?: Log;
    counters?: Counters;
    now?: () => number;
    random?: () => number;
    /** Local only (dynalite cannot add the index to an existing table). */
    scanWhenIndexMissing?: boolean;
  } = {},
): SyncWorker {
  const settings = syncSettings(config.settings);
  const now = overrides.now ?? Date.now;
  const aliases = parseTopicAliases(config.settings.TOPIC_ALIASES);
  const ledger = new DynamoSuppressionSync(clients.doc, config.suppressionTable, now, {
    scanWhenIndexMissing: overrides.scanWhenIndexMissing,
    batchReads: true,
  });
  const providerFacts = new DynamoSyncProviders(clients.doc, config.inboxTable);
  const queue = new SqsSyncQueue(clients.sqs, queues.queueUrl, queues.deadLetterUrl);
  const providers = settings.providers.filter((p) => targets.has(p));
  const gates = new Map(
    providers.map(
      (p) =>
        [
          p,
          new ProviderGate(p, settings.limits[p], {
            shared: providerFacts,
            now,
            maxHoldMs: SYNC_MAX_HOLD_MS,
            bookingHorizonMs: SYNC_BOOKING_HORIZON_MS,
          }),
        ] as const,
    ),
  );
  // One batcher per provider: pushes to the same list that wait for the gate share one request.
  const batchers = new Map(providers.map((p) => [p, new ProviderBatcher(targets.get(p)!, gates.get(p)!)] as const));
  const push: PushDeps = {
    ledger,
    providers,
    now,
    plan: (provider) => ({ aliases, handlesScope: (scope) => targets.get(provider)!.handlesScope(scope) }),
    apply: (provider, operation, ticket) => batchers.get(provider)!.apply(operation, ticket),
    // A lookup is a provider call like a push: the same gate, rate and pause.
    held: (provider, operation, ticket) => {
      const target = targets.get(provider)!;
      return target.held
        ? gates.get(provider)!.run(() => target.held!(operation), { ticket, urgent: letsMailThrough(operation) })
        : Promise.resolve(undefined);
    },
  };
  const log = overrides.log ?? powertoolsLog('ratchet-sync', config.settings[RUNTIME_VARIABLE.logLevel]);
  const handler = createSyncWorkerHandler({
    push,
    queue,
    succeeded: (provider, at) => providerFacts.succeeded(provider, at),
    retryHorizonMs: settings.retryHorizonMs,
    log,
    counters: overrides.counters ?? powertoolsCounters('ratchet-sync', 'Ratchet'),
    random: overrides.random,
  });
  return {
    settings,
    handler,
    ledger,
    queue,
    providerFacts,
    gates,
    sweeper: buildSyncSweeper(config, clients, queues, {
      now,
      log,
      scanWhenIndexMissing: overrides.scanWhenIndexMissing,
    }),
  };
}
