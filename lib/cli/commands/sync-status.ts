/**
 * `ratchet sync status [--json]`: per provider, what is still to push (`pending`, from the `sync-due`
 * index), what was dead-lettered (`failed`, from the sync dead letters), the refused removals, the last
 * success, the backfill's progress and the latest reconcile.
 *
 * A number it cannot know is `null` (`unknown` in the text), never 0: a 0 that only means "not looked
 * at" would tell the operator that nothing failed. The dead letters not found (a resource prefix other
 * than the default with no SYNC_DEAD_LETTER_QUEUE_URL, an endpoint that does not answer): `failed` is
 * null and the command exits 1 with one line saying what to set. The index still being built (sync just
 * turned on for a table with records), or absent on AWS: `pending` and `refused` are null, a note says
 * so on stderr, and it exits 0 — the backfill's progress, the one thing to watch then, is printed.
 */
import { DynamoSuppressionSync } from '../../../lambdas/adapters/dynamodb-suppression-sync.js';
import { IndexNotReadyError, isMissingIndex } from '../../../lambdas/adapters/dynamodb-sync-index-errors.js';
import { DynamoSyncProviders, type ReconcileRun } from '../../../lambdas/adapters/dynamodb-sync-providers.js';
import type { DeadLetter, SqsDeadLetters } from '../../../lambdas/adapters/sqs-dead-letters.js';
import { DEAD_DUE_MS, laggingProviders } from '../../../lambdas/core/sync/ledger.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../../../lambdas/core/sync/target.js';
import type { Context } from '../context.js';
import { deadLetterBatches } from '../dead-letter-batches.js';
import { syncDeadLetters } from './sync-queues.js';

/** How long `status` hides each dead letter while it counts them (SQS has no peek). */
export const HIDE_SECONDS = 30;
/**
 * The most dead letters `status` counts. Each one counted stays in flight (hidden) until the count ends,
 * and SQS refuses a receive once a standard queue has about 120,000 in flight
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html):
 * past this the counts are the first ones' only, and a note says so.
 */
export const PEEK_MAX = 100_000;

export interface ProviderStatus {
  /** Changes still to push; null when the index cannot be read yet. */
  pending: number | null;
  /** Messages in the sync dead letters; null when they could not be read. */
  failed: number | null;
  refused: number | null;
  lastSuccessAt: number | null;
  /** The walk that brings a provider new to the table up to date (records read, records queued for it). */
  backfill: { state: 'not started' } | { state: 'running' | 'done'; scanned: number; marked: number; doneAt?: number };
  /** The latest finished `sync reconcile` against this provider, or null. */
  lastReconcile: ReconcileRun | null;
}

export async function syncStatus(ctx: Context, providers: SyncProviderName[], json: boolean): Promise<number> {
  // Off AWS (an endpoint, the local stack) a table created before the index is read whole instead.
  const ledger = new DynamoSuppressionSync(ctx.doc, ctx.target.suppressionTable, Date.now, {
    scanWhenIndexMissing: ctx.target.kind !== 'aws',
  });
  const facts = new DynamoSyncProviders(ctx.doc, ctx.target.inboxTable);
  const out: Record<string, ProviderStatus> = {};
  for (const p of providers)
    out[p] = {
      pending: 0,
      failed: 0,
      refused: 0,
      lastSuccessAt: null,
      backfill: { state: 'not started' },
      lastReconcile: null,
    };
  let indexNotReady: string | undefined;
  try {
    // Everything indexed, parked items included: those hold the refused removals.
    await ledger.pending(DEAD_DUE_MS, (items) => {
      for (const item of items) {
        for (const p of laggingProviders(item, providers)) out[p]!.pending!++;
        for (const p of providers) out[p]!.refused! += item.sync[p]?.refused?.length ? 1 : 0;
      }
      return undefined;
    });
  } catch (error) {
    if (!(error instanceof IndexNotReadyError)) throw error;
    indexNotReady = (error.cause as Error | undefined)?.message ?? error.message;
    for (const p of providers) Object.assign(out[p]!, { pending: null, refused: null });
  }
  const dead = await syncDeadLetters(ctx);
  let truncated = false;
  if (dead.ok) {
    const peeked = await peekAll(dead.value);
    truncated = peeked.truncated;
    for (const message of peeked.messages) {
      const p = providerOf(message);
      if (p && out[p]) out[p].failed!++;
    }
  } else for (const p of providers) out[p]!.failed = null;
  for (const p of providers) {
    const known = await facts.facts(p);
    out[p]!.lastSuccessAt = known.lastSuccessAt ?? null;
    out[p]!.lastReconcile = known.lastReconcile ?? null;
    if (known.backfill) {
      const { done, scanned, marked, doneAt } = known.backfill;
      out[p]!.backfill = { state: done ? 'done' : 'running', scanned, marked, ...(doneAt ? { doneAt } : {}) };
    }
  }
  if (json) ctx.io.out(JSON.stringify({ providers: out, ...(indexNotReady ? { indexNotReady } : {}) }));
  else for (const [p, s] of Object.entries(out)) ctx.io.out(statusLine(p, s));
  if (indexNotReady) ctx.io.err(indexNote(indexNotReady));
  if (truncated)
    ctx.io.err(
      `note: failed counts the first ${PEEK_MAX} dead letters only (SQS keeps at most about 120,000 in flight); the queue holds more`,
    );
  if (!dead.ok) {
    ctx.io.err(`error: ${ctx.action}: ${dead.problem}`);
    return 1;
  }
  return 0;
}

/** What the index's answer means: still being built (wait), or not there at all (add it). */
function indexNote(answer: string): string {
  const missing = isMissingIndex(new Error(answer));
  return missing
    ? `note: the suppression table has no sync-due index (${answer}): pending and refused are unknown, and the sweeper re-sends nothing until it exists; a retained table (reuseRetained) keeps the indexes it was created with (docs/deploy-lifecycle.md)`
    : `note: the sync-due index cannot be read yet (${answer}): pending and refused are unknown until DynamoDB has built it; the sweeper asks again every minute`;
}

function statusLine(p: string, s: ProviderStatus): string {
  const n = (value: number | null) => (value === null ? 'unknown' : String(value));
  const b = s.backfill;
  const backfill = b.state === 'not started' ? b.state : `${b.state}, ${b.scanned} read, ${b.marked} queued`;
  const last = s.lastSuccessAt === null ? 'never' : new Date(s.lastSuccessAt).toISOString();
  return `${p.padEnd(9)} pending ${n(s.pending)}  failed ${n(s.failed)}  refused ${n(s.refused)}  lastSuccessAt ${last}  backfill ${backfill}  lastReconcile ${reconcileText(s.lastReconcile)}`;
}

/**
 * The provider a dead letter is for: the attribute the worker sets, else the message body's own (a
 * message the queue's redrive policy moved after crashing the worker on every receive carries none).
 */
function providerOf(message: DeadLetter): SyncProviderName | undefined {
  let name: unknown = message.attributes.provider;
  if (name === undefined) {
    try {
      name = (JSON.parse(message.body) as { provider?: unknown }).provider;
    } catch {
      return undefined;
    }
  }
  return (SYNC_PROVIDER_NAMES as readonly unknown[]).includes(name) ? (name as SyncProviderName) : undefined;
}

/**
 * Every dead letter once, each made visible again at once (SQS has no peek); the reading ends as every
 * dead-letter reader's does (deadLetterBatches: long polls, and a batch of messages all seen already).
 */
export async function peekAll(
  queue: Pick<SqsDeadLetters, 'receive' | 'release'>,
  max = PEEK_MAX,
): Promise<{ messages: DeadLetter[]; truncated: boolean }> {
  const seen = new Map<string, DeadLetter>();
  let truncated = false;
  try {
    for await (const fresh of deadLetterBatches(queue, HIDE_SECONDS, seen)) {
      for (const message of fresh) seen.set(message.id, message);
      if (seen.size >= max) {
        truncated = true;
        break;
      }
    }
  } finally {
    for (const message of seen.values()) await queue.release(message).catch(() => undefined);
  }
  return { messages: [...seen.values()], truncated };
}

function reconcileText(run: ReconcileRun | null): string {
  if (run === null) return 'never';
  return `${new Date(run.at).toISOString()} (drift ${run.drift}${run.applied ? ', applied' : ''})`;
}
