/**
 * Backfill: a provider that has never seen the table (sync turned on for a table that already has
 * records, or a provider added to SYNC_PROVIDERS later) gets every suppressed address and every topic
 * opt-out, with no operator command; so does a provider whose scopes TOPIC_ALIASES changed (an alias
 * set after the opt-outs it covers). Transport-neutral; the sweeper runs one step per sweep.
 *
 * It walks the table page by page and puts an outbox marker (due now) on every record the provider
 * lacks something of and that has none yet; the sweeper and the worker then push it like any other
 * change, so it inherits their lease, gates and retries, and the worker's plan (state, not history)
 * means a record that is already at the provider is never pushed again. The cursor is saved after each
 * page, so a crash repeats at most one page, and marking is conditional (no marker yet), so a repeated
 * page sends nothing twice. Memory is one page. Each step marks at most the provider's rate times the
 * sweep interval: the backfill never queues more than the provider can take before the next sweep.
 *
 * An alias changes no record, so the change counters cannot tell who lacks what it adds: each walk keeps
 * the aliases it was made under (scopeFingerprint), a walk done under others is made again, and it marks
 * a record the provider is caught up with only when the plan under today's aliases still has something
 * to push there (a new change, so the sweeper sends it: `scopes` marks).
 */
import { settleWithLimit } from '../pipeline/concurrency.js';
import type { SuppressionRecord } from '../suppression/record.js';
import { laggingProviders } from './ledger.js';
import { type PlanContext, planSync } from './plan.js';
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
  /** The provider's TOPIC_ALIASES entries the walk was made under (scopeFingerprint); absent: none (a walk made before this was kept). */
  scopes?: string;
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
  /**
   * `change`: a marker due at `dueMs` on a record that has none; false when it has one. `scopes`: a new
   * sync change, so every provider lags (the others plan nothing), and the marker if it has none.
   */
  mark(email: string, dueMs: number, why: BackfillMark): Promise<boolean>;
  now(): number;
}

/**
 * Why the provider lacks something of the record, if it does: `change`, it has not caught up with the
 * record's latest change (and no marker is set); `scopes`, it has, but the plan under today's aliases
 * (`plan`) still pushes there, marker or not (the mark is a new change: every provider lags). A change
 * dead-lettered there, or a refusal on record, is left to `sync retry` and the report.
 */
export type BackfillMark = 'change' | 'scopes';

export function backfillMark(
  candidate: BackfillCandidate,
  provider: SyncProviderName,
  plan?: PlanContext,
): BackfillMark | undefined {
  const { record } = candidate;
  const holds =
    record.status === 'suppressed' ||
    Object.values(record.topics ?? {}).some((topic) => topic.status === 'unsubscribed');
  if (!holds) return undefined;
  // Pending and lagging: the marker's message comes to this provider anyway.
  if (laggingProviders(candidate, [provider]).length > 0) return candidate.pending ? undefined : 'change';
  // Caught up: a marker set for others (another walk's, in this sweep) sends nothing here, so pending or not.
  const state = candidate.sync[provider];
  if (plan === undefined || state?.failed?.change === candidate.change || (state?.refused?.length ?? 0) > 0)
    return undefined;
  return planSync(record, state, plan).length > 0 ? 'scopes' : undefined;
}

/**
 * The provider's TOPIC_ALIASES entries, as text: the ones that name one of its scopes, either side (the
 * only ones that change what its plan pushes). A walk made before this was kept counts as made under none.
 */
export function scopeFingerprint(plan: PlanContext): string {
  const entries = [...plan.aliases]
    .filter(([canonical, alias]) => plan.handlesScope(canonical) || plan.handlesScope(alias))
    .map(([canonical, alias]) => `${canonical}=${alias}`)
    .sort();
  return JSON.stringify(entries);
}

const NO_SCOPES = JSON.stringify([]);

/** Records marked per step: the provider's rate over one sweep interval, at least one page's worth of progress. */
export function backfillBudget(ratePerSecond: number, intervalMs: number): number {
  return Math.max(1, Math.floor((ratePerSecond * intervalMs) / 1000));
}

const MAX_PAGE = 500;

/**
 * One step: pages until `budget` records are marked, the table ends, or the deadline passes. With `plan`
 * (the provider's scopes under today's aliases), a walk made under other aliases, done or not, starts over.
 */
export async function backfillStep(
  ports: BackfillPorts,
  provider: SyncProviderName,
  options: { budget: number; deadline: number; writeConcurrency: number; plan?: PlanContext },
): Promise<BackfillProgress> {
  const scopes = options.plan && scopeFingerprint(options.plan);
  const stored = await ports.progress(provider);
  let progress: BackfillProgress =
    stored !== undefined && (scopes === undefined || (stored.scopes ?? NO_SCOPES) === scopes)
      ? stored
      : { done: false, scanned: 0, marked: 0, startedAt: ports.now(), ...(scopes !== undefined ? { scopes } : {}) };
  let marked = 0;
  while (!progress.done && marked < options.budget && ports.now() < options.deadline) {
    const page = await ports.scan(progress.cursor, Math.min(MAX_PAGE, Math.max(1, options.budget - marked)));
    const due = ports.now();
    const marks = page.items.flatMap((c) => {
      const why = backfillMark(c, provider, options.plan);
      return why === undefined ? [] : [{ email: c.record.email, why }];
    });
    const results = await settleWithLimit(marks, options.writeConcurrency, (m) => ports.mark(m.email, due, m.why));
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
