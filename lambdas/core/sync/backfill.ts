/**
 * Backfill: a provider that has never seen the table (sync turned on for a table that already has
 * records, or a provider added to SYNC_PROVIDERS later) gets every suppressed address and every topic
 * opt-out, with no operator command. Transport-neutral; the sweeper runs one step per sweep.
 *
 * It walks the table page by page and puts an outbox marker (due now) on every record the provider
 * lacks something of and that has none yet; the sweeper and the worker then push it like any other
 * change, so it inherits their lease, gates and retries, and the worker's plan (state, not history)
 * means a record that is already at the provider is never pushed again. The cursor is saved after each
 * page, so a crash repeats at most one page, and marking is conditional (no marker yet), so a repeated
 * page sends nothing twice. Memory is one page. Each step marks at most the provider's rate times the
 * sweep interval: the backfill never queues more than the provider can take before the next sweep.
 */
import { settleWithLimit } from '../pipeline/concurrency.js';
import type { SuppressionRecord } from '../suppression/record.js';
import { laggingProviders } from './ledger.js';
import type { SyncMap } from './state.js';
import type { SyncProviderName } from './target.js';

export interface BackfillProgress {
  /** Where the next page starts (the store's opaque cursor); absent at the start and once done. */
  cursor?: string;
  done: boolean;
  /** Records read so far. */
  scanned: number;
  /** Records given a marker so far. */
  marked: number;
  startedAt: number;
  doneAt?: number;
}

export interface BackfillCandidate {
  record: SuppressionRecord;
  sync: SyncMap;
  change: number;
  /** Whether it has a marker a sweep will read; a parked one (never due) is none. */
  pending: boolean;
}

export interface BackfillPorts {
  progress(provider: SyncProviderName): Promise<BackfillProgress | undefined>;
  save(provider: SyncProviderName, progress: BackfillProgress): Promise<void>;
  scan(cursor: string | undefined, limit: number): Promise<{ items: BackfillCandidate[]; cursor?: string }>;
  /** A marker due at `dueMs` on a record that has none; false when it has one. */
  mark(email: string, dueMs: number): Promise<boolean>;
  now(): number;
}

/** Whether the record holds anything a provider should have, and the provider has not caught up with it. */
export function needsBackfill(candidate: BackfillCandidate, provider: SyncProviderName): boolean {
  if (candidate.pending) return false;
  const { record } = candidate;
  const holds =
    record.status === 'suppressed' ||
    Object.values(record.topics ?? {}).some((topic) => topic.status === 'unsubscribed');
  return holds && laggingProviders(candidate, [provider]).length > 0;
}

/** Records marked per step: the provider's rate over one sweep interval, at least one page's worth of progress. */
export function backfillBudget(ratePerSecond: number, intervalMs: number): number {
  return Math.max(1, Math.floor((ratePerSecond * intervalMs) / 1000));
}

const MAX_PAGE = 500;

/** One step: pages until `budget` records are marked, the table ends, or the deadline passes. */
export async function backfillStep(
  ports: BackfillPorts,
  provider: SyncProviderName,
  options: { budget: number; deadline: number; writeConcurrency: number },
): Promise<BackfillProgress> {
  let progress = (await ports.progress(provider)) ?? { done: false, scanned: 0, marked: 0, startedAt: ports.now() };
  let marked = 0;
  while (!progress.done && marked < options.budget && ports.now() < options.deadline) {
    const page = await ports.scan(progress.cursor, Math.min(MAX_PAGE, Math.max(1, options.budget - marked)));
    const due = ports.now();
    const results = await settleWithLimit(
      page.items.filter((c) => needsBackfill(c, provider)),
      options.writeConcurrency,
      (c) => ports.mark(c.record.email, due),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    // The cursor is not moved past a page whose marks did not all land: the next step repeats it.
    if (failed) throw failed.reason;
    const newly = results.filter((r) => r.status === 'fulfilled' && r.value).length;
    marked += newly;
    const { cursor: _cursor, ...rest } = progress;
    progress = {
      ...rest,
      ...(page.cursor !== undefined ? { cursor: page.cursor } : {}),
      scanned: progress.scanned + page.items.length,
      marked: progress.marked + newly,
      done: page.cursor === undefined,
      ...(page.cursor === undefined ? { doneAt: ports.now() } : {}),
    };
    await ports.save(provider, progress);
  }
  return progress;
}
