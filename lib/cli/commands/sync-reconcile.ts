/**
 * `ratchet sync reconcile`: each provider's lists against every record. `--apply` pushes what a
 * provider lacks (and records the answer in the record's `sync` map, as the worker would) and imports
 * what Ratchet lacks as evidence, actor `sync:<provider>`, dated and worded by the provider, through the
 * same merge as `suppressions import`: it only ever adds, so it never lifts a suppression; a scope entry
 * becomes a topic opt-out, never a global suppression.
 *
 * What it keeps in memory does not grow with the sizes: per provider, the provider's list pages and the table's scan
 * pages are each spilled to disk sorted by address (SortedSpill: an external merge sort), then the two
 * sorted streams are walked side by side, one address at a time. Only the drift found is kept, for
 * the report. The table is read once per provider, just after that provider's lists, so a provider
 * compared later sees what `--apply` imported from an earlier one.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoSuppressionSync } from '../../../lambdas/adapters/dynamodb-suppression-sync.js';
import type { DynamoSuppressionStore } from '../../../lambdas/adapters/dynamodb-suppressions.js';
import { DynamoSyncProviders } from '../../../lambdas/adapters/dynamodb-sync-providers.js';
import { normalizeRecipient } from '../../../lambdas/core/event.js';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import type { PlanContext } from '../../../lambdas/core/sync/plan.js';
import { compareAddress, type Drift, type ReconcileRecord } from '../../../lambdas/core/sync/reconcile.js';
import { type ProviderLimits, syncSettings } from '../../../lambdas/core/sync/settings.js';
import { type ProviderSyncState, recordOutcome, type SyncMap } from '../../../lambdas/core/sync/state.js';
import {
  type ProviderListEntry,
  type SyncOperation,
  type SyncOutcome,
  type SyncProviderName,
  SyncRefusedError,
  type SyncTarget,
} from '../../../lambdas/core/sync/target.js';
import { parseTopicAliases } from '../../../lambdas/core/topics.js';
import { SYNC_RECONCILE } from '../../sync-definitions.js';
import type { Context } from '../context.js';
import { joinSorted, SortedSpill } from '../sorted-spill.js';
import { type PaceClock, type ReconcilePace, reconcileGate, SharedPauses } from './sync-reconcile-pace.js';

export type ProviderDrift = Pick<Drift, 'missingAtProvider' | 'missingInRatchet' | 'informational' | 'refused'>;

export interface ReconcileReport {
  providers: Record<string, ProviderDrift>;
  pushed: number;
  imported: number;
  /** Pushes the provider refused for good (a 4xx other than 429): said on stderr, the run goes on, exit 1. */
  failed: number;
}

/** What is spilled of each record: the fields compareAddress reads, and this provider's `sync` state. */
interface KeptRecord extends ReconcileRecord {
  email: string;
  pushed?: ProviderSyncState;
}

export async function reconcile(
  ctx: Context,
  targets: readonly SyncTarget[],
  options: {
    apply: boolean;
    runBytes?: number;
    /** Each provider's rate, which `--apply` paces its pushes by. @default from `ctx.env` (SYNC_<PROVIDER>_RATE) */
    limits?: Readonly<Record<SyncProviderName, Pick<ProviderLimits, 'rate'>>>;
    /** @default the real clock */
    clock?: PaceClock;
    /** The worker's shared 429 pauses, honoured and written by every call. @default the inbox table's `sync#<provider>` rows */
    pauses?: SharedPauses;
  },
): Promise<ReconcileReport> {
  const limits = options.limits ?? syncSettings({ ...ctx.env, SYNC_PROVIDERS: '' }).limits;
  const aliases = parseTopicAliases(ctx.env.TOPIC_ALIASES);
  const store = ctx.suppressions();
  const ledger = new DynamoSuppressionSync(ctx.doc, ctx.target.suppressionTable, ctx.now);
  const report: ReconcileReport = { providers: {}, pushed: 0, imported: 0, failed: 0 };
  const pauses = options.pauses ?? reconcilePauses(ctx);
  try {
    for (const target of targets) await reconcileProvider(target);
  } finally {
    await pauses.settled();
  }
  return report;

  async function reconcileProvider(target: SyncTarget): Promise<void> {
    const provider = target.provider;
    // A scope the provider's lists do not show (a Postmark stream outside POSTMARK_STREAMS and
    // TOPIC_ALIASES) cannot be compared: expecting it there would report it missing on every run.
    const context: PlanContext = {
      aliases,
      handlesScope: (scope: string) => target.handlesScope(scope) && (target.listsScope?.(scope) ?? true),
    };
    const drift: ProviderDrift = { missingAtProvider: [], missingInRatchet: [], informational: [], refused: [] };
    const gate = reconcileGate(provider, limits[provider], options.clock, pauses);
    const dir = await mkdtemp(join(tmpdir(), `ratchet-reconcile-${provider}-`));
    try {
      const entries = new SortedSpill<ProviderListEntry>(dir, 'provider', (e) => e.email, options.runBytes);
      // Not while the worker's shared 429 pause holds: before the first request, and after each one (`list`
      // hands over every request's page, an empty one too, so a run of empty lists is no gap).
      await gate.waitOutPause();
      await target
        .list(async (page) => {
          for (const entry of page) {
            const email = keyOf(entry.email);
            // Not an address Ratchet keys on (an IDN domain, `user@localhost` in SendGrid's invalid_emails):
            // no record can explain or hold it, so it is listed, never drift, and the run goes on.
            if (email === undefined) drift.informational.push(shownAsIs(entry));
            else await entries.add({ ...entry, email });
          }
          await gate.waitOutPause();
        })
        .catch(async (error: unknown) => {
          await gate.heard(error);
          throw error;
        });
      for (const scope of unlistedAliases(target, aliases.keys()))
        ctx.io.err(`note: ${provider} has no list for ${scope} (TOPIC_ALIASES): its topic opt-outs are not compared`);
      const records = new SortedSpill<KeptRecord>(dir, 'records', (r) => r.email, options.runBytes);
      await store.scan({}, async (page) => {
        for (const record of page) await records.add(kept(record as SuppressionRecord & { sync?: SyncMap }, provider));
      });
      const walk = joinSorted(
        records.sorted(),
        (r) => r.email,
        entries.sorted(),
        (e) => e.email,
      );
      for await (const { key: email, item: record, group } of walk) {
        const found = compareAddress(email, record, record?.pushed, group, context);
        drift.missingAtProvider.push(...found.missingAtProvider);
        drift.missingInRatchet.push(...found.missingInRatchet);
        drift.informational.push(...found.informational);
        drift.refused.push(...found.refused);
        if (options.apply) await repair(ctx, store, ledger, target, gate, email, found, report);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    report.providers[provider] = drift;
    // Only a run that finished is recorded: `sync status` and the console show when the lists last agreed.
    await new DynamoSyncProviders(ctx.doc, ctx.target.inboxTable).reconciled(provider, {
      at: ctx.now(),
      drift: drift.missingAtProvider.length + drift.missingInRatchet.length,
      applied: options.apply,
    });
  }
}

/** The shared pauses in the inbox table's `sync#<provider>` rows; a wait is said on stderr, as a 429's is. */
export function reconcilePauses(ctx: Context): SharedPauses {
  return new SharedPauses(new DynamoSyncProviders(ctx.doc, ctx.target.inboxTable), {
    maxWaitMs: SYNC_RECONCILE.rateLimitMaxWaitMs,
    onWait: (provider, until) =>
      ctx.io.err(
        `${provider} is paused (a 429 the sync worker shares): waiting until ${new Date(until).toISOString()}`,
      ),
  });
}

/**
 * The scopes TOPIC_ALIASES names that the target handles but its lists did not show (a SendGrid group the
 * account does not have, or deleted during the run): said once each, so a typo does not pass unseen.
 */
function unlistedAliases(target: SyncTarget, scopes: Iterable<string>): string[] {
  return [...scopes].filter((scope) => target.handlesScope(scope) && target.listsScope?.(scope) === false);
}

/** The key Ratchet stores the address under, or undefined when it stores none for it. */
function keyOf(email: string): string | undefined {
  try {
    return normalizeRecipient(email);
  } catch {
    return undefined;
  }
}

/** An entry as the provider spelled it, for the report. */
function shownAsIs(entry: ProviderListEntry): ProviderDrift['informational'][number] {
  return {
    email: entry.email,
    list: entry.list,
    ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
    ...(entry.date !== undefined ? { date: entry.date } : {}),
  };
}

function kept(record: SuppressionRecord & { sync?: SyncMap }, provider: SyncProviderName): KeptRecord {
  const topics = Object.fromEntries(
    Object.entries(record.topics ?? {}).map(([name, t]) => [name, { status: t.status, changedAt: t.changedAt }]),
  );
  const pushed = record.sync?.[provider];
  return {
    email: record.email,
    status: record.status,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.reactivatedAt !== undefined ? { reactivatedAt: record.reactivatedAt } : {}),
    topics,
    ...(pushed !== undefined ? { pushed } : {}),
  };
}

/** `--apply` for one address: the pushes, then the imports, one at a time. */
async function repair(
  ctx: Context,
  store: DynamoSuppressionStore,
  ledger: DynamoSuppressionSync,
  target: SyncTarget,
  gate: ReconcilePace,
  email: string,
  found: Drift,
  report: ReconcileReport,
): Promise<void> {
  const provider = target.provider;
  for (const operation of found.push) {
    let outcome: SyncOutcome;
    try {
      // At the provider's configured rate: the live worker needs the rest of its limit.
      outcome = await gate.run(() => target.apply(operation));
    } catch (error) {
      // Refused for this address only (SendGrid finds it invalid): stopping here would stop every rerun at
      // the same address, and nothing sorted after it would ever be repaired. Anything else ends the run.
      if (!(error instanceof SyncRefusedError)) throw error;
      ctx.io.err(`${provider} refused the push for ${email}: ${error.message}`);
      report.failed++;
      continue;
    }
    // A list Ratchet once put the address on, that the provider lacks and this push did not put it back
    // on (a Mailgun domain or a Postmark stream no longer configured, an unsubscribe deleted by hand
    // beside a complaint): the sync map stops claiming it, or every run would report it and push again.
    const lost =
      operation.op === 'suppress'
        ? found.missingAtProvider.map((m) => m.list).filter((list) => !outcome.lists.includes(list))
        : [];
    await recordPush(ledger, provider, operation, outcome, ctx.now(), lost);
    report.pushed++;
  }
  for (const { entry, kind, topic } of found.imports) {
    const at = entry.date ?? ctx.now();
    const actor = `sync:${provider}`;
    if (topic !== undefined)
      await store.unsubscribeTopic(email, topic, { actor, reason: entry.reason ?? entry.list, at });
    else
      await store.importEntry(email, {
        kind,
        occurredAt: at,
        actor,
        entryId: `${provider}:${entry.list}:${at}`,
        note: entry.reason ?? entry.list,
        source: `sync-${provider}`,
      });
    report.imported++;
  }
}

/** The push lands in the `sync` map like the worker's, so the planner knows the provider holds it. */
async function recordPush(
  ledger: DynamoSuppressionSync,
  provider: SyncProviderName,
  operation: SyncOperation,
  outcome: SyncOutcome,
  now: number,
  lost: readonly string[],
): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const view = await ledger.read(operation.email);
    if (view === undefined) return;
    const state = recordOutcome(view.sync[provider], operation, outcome, now);
    state.lists = state.lists.filter((list) => !lost.includes(list));
    if (await ledger.commit(operation.email, view.version, { ...view.sync, [provider]: state }, 'keep')) return;
  }
}
