/**
 * The sweeper's wiring, shared by the Lambda (one run a minute) and the local runtime (an interval):
 * each configured provider's backfill step, then one sweep of the outbox (core/sync/sweep.ts). The
 * drain meter lives as long as the sweeper (a warm Lambda container, or the local process); a cold one
 * starts from the configured ceiling.
 */
import type { Log } from '../../core/pipeline/ports.js';
import { type BackfillMark, type BackfillProgress, backfillBudget, backfillStep } from '../../core/sync/backfill.js';
import { DrainMeter } from '../../core/sync/lease.js';
import { drainCeiling, syncSettings } from '../../core/sync/settings.js';
import { runSweep, type SweepResult } from '../../core/sync/sweep.js';
import type { SyncProviderName } from '../../core/sync/target.js';
import { parseTopicAliases } from '../../core/topics.js';
import { DynamoSuppressionSync } from '../dynamodb-suppression-sync.js';
import { IndexNotReadyError } from '../dynamodb-sync-index-errors.js';
import { DynamoSyncProviders } from '../dynamodb-sync-providers.js';
import { SqsSyncQueue } from '../sqs-sync-queue.js';
import { providerPlan } from '../sync/scopes.js';
import type { Clients, RuntimeConfig } from './config.js';
import type { SyncQueues } from './sync-fast-path.js';

/** Lease and backfill writes in flight at once. */
export const SWEEP_WRITE_CONCURRENCY = 16;
/** The sweep interval the schedule keeps (EventBridge on AWS, the local timer). */
export const SWEEP_INTERVAL_MS = 60_000;

export interface SweepRun {
  dueBefore: number;
  /** No new page after this (epoch ms). */
  deadline: number;
  all?: boolean;
}

export interface SweepReport extends SweepResult {
  /** Set when the index could not be read (still being built, or absent): the next sweep asks again. */
  indexNotReady?: string;
  backfill: Partial<Record<SyncProviderName, BackfillProgress>>;
}

export interface SyncSweeper {
  ledger: DynamoSuppressionSync;
  queue: SqsSyncQueue;
  sweep(run: SweepRun): Promise<SweepReport>;
}

export function buildSyncSweeper(
  config: RuntimeConfig,
  clients: Pick<Clients, 'doc' | 'sqs'>,
  queues: Pick<SyncQueues, 'queueUrl'>,
  options: {
    now?: () => number;
    log?: Log;
    scanWhenIndexMissing?: boolean;
    intervalMs?: number;
    /**
     * Copies of the worker draining the queue, each at the configured rates (on AWS, the event source's
     * MaximumConcurrency).
     * @default 1 (the local runtime's one worker)
     */
    workerCopies?: number;
  } = {},
): SyncSweeper {
  const settings = syncSettings(config.settings);
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
  const ledger = new DynamoSuppressionSync(clients.doc, config.suppressionTable, now, {
    scanWhenIndexMissing: options.scanWhenIndexMissing,
  });
  const facts = new DynamoSyncProviders(clients.doc, config.inboxTable);
  const queue = new SqsSyncQueue(clients.sqs, queues.queueUrl);
  const providers = settings.providers;
  // The ceiling: every provider pushing at its configured rate on every copy (messages of different
  // providers drain side by side).
  const meter = new DrainMeter(
    drainCeiling(settings.limits, providers, options.workerCopies ?? 1),
    Math.max(1, providers.length),
  );
  // The aliases this process runs with: a change of them is a new deployment (or a restart locally), so a
  // walk found done under them stays done for the life of the process.
  const aliases = parseTopicAliases(config.settings.TOPIC_ALIASES);
  const finished = new Set<SyncProviderName>();
  // Providers back in SYNC_PROVIDERS since the sweeper last ran (the `sync#configured` row): walked again
  // from the first page whatever their row says, since the changes made while they were out reached
  // only the others. The list is saved once each of them has saved a walk of its own, so a crash before
  // that finds them again. None before any sweeper saved a list (an upgrade walks nobody again).
  let rejoined: Set<SyncProviderName> | undefined;
  const returning = async () => {
    if (rejoined === undefined) {
      const last = await facts.configuredProviders();
      rejoined = new Set(last === undefined ? [] : providers.filter((p) => !last.includes(p)));
      // Every provider is on the list, so it differs only by one taken out since (or there is none yet).
      if (rejoined.size === 0 && last?.length !== providers.length) await facts.saveConfiguredProviders(providers);
    }
    return rejoined;
  };
  const backfillPorts = {
    progress: async (p: SyncProviderName) => ((await returning()).has(p) ? undefined : facts.backfill(p)),
    save: async (p: SyncProviderName, progress: BackfillProgress) => {
      await facts.saveBackfill(p, progress);
      const back = await returning();
      if (back.delete(p) && back.size === 0) await facts.saveConfiguredProviders(providers);
    },
    scan: (cursor: string | undefined, limit: number) => ledger.scanRecords(cursor, limit),
    mark: (email: string, dueMs: number, why: BackfillMark) => ledger.markPending(email, dueMs, why),
    now,
  };
  return {
    ledger,
    queue,
    async sweep(run) {
      const backfill: SweepReport['backfill'] = {};
      // The backfill gets at most half of the sweep's time: a step over records that need nothing pages
      // to its deadline, and the outbox after it would read no page, sweep after sweep, until it ends.
      const startedAt = now();
      const backfillDeadline = startedAt + Math.max(0, run.deadline - startedAt) / 2;
      for (const provider of providers) {
        if (finished.has(provider)) continue;
        const progress = await backfillStep(backfillPorts, provider, {
          budget: backfillBudget(settings.limits[provider].rate, intervalMs),
          deadline: backfillDeadline,
          writeConcurrency: SWEEP_WRITE_CONCURRENCY,
          plan: providerPlan(provider, aliases),
        });
        backfill[provider] = progress;
        if (progress.done) finished.add(provider);
      }
      try {
        const result = await runSweep(
          {
            pending: (dueBefore, onPage, o) => ledger.pending(dueBefore, onPage, o),
            postpone: (email, from, to) => ledger.postpone(email, from, to),
            send: (messages) => queue.send(messages),
            depth: () => queue.depth(),
            now,
          },
          meter,
          providers,
          { ...run, intervalMs, writeConcurrency: SWEEP_WRITE_CONCURRENCY },
        );
        return { ...result, backfill };
      } catch (error) {
        if (!(error instanceof IndexNotReadyError)) throw error;
        options.log?.warn('sync index not ready; the next sweep asks again', { error: error.message });
        return { sent: 0, renewed: 0, complete: false, indexNotReady: error.message, backfill };
      }
    },
  };
}
