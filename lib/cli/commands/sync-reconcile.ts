/**
 * `ratchet sync reconcile`: each provider's lists, pulled page by page, against every record, page by
 * page. `--apply` pushes what a provider lacks (and records the answer in the record's `sync` map, as
 * the worker would) and imports what Ratchet lacks as evidence, actor `sync:<provider>`, dated and
 * worded by the provider, through the same merge as `suppressions import`: it only ever adds, so it
 * never lifts a suppression; a scope entry becomes a topic opt-out, never a global suppression.
 */
import { DynamoSuppressionSync } from '../../../lambdas/adapters/dynamodb-suppression-sync.js';
import { normalizeRecipient } from '../../../lambdas/core/event.js';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import { compareAddress, type Drift } from '../../../lambdas/core/sync/reconcile.js';
import { recordOutcome, type SyncMap } from '../../../lambdas/core/sync/state.js';
import type {
  ProviderListEntry,
  SyncOperation,
  SyncProviderName,
  SyncTarget,
} from '../../../lambdas/core/sync/target.js';
import { parseTopicAliases } from '../../../lambdas/core/topics.js';
import type { Context } from '../context.js';

export type ProviderDrift = Pick<Drift, 'missingAtProvider' | 'missingInRatchet' | 'informational' | 'refused'>;

export interface ReconcileReport {
  providers: Record<string, ProviderDrift>;
  pushed: number;
  imported: number;
}

export async function reconcile(
  ctx: Context,
  targets: readonly SyncTarget[],
  options: { apply: boolean },
): Promise<ReconcileReport> {
  const aliases = parseTopicAliases(ctx.env.TOPIC_ALIASES);
  const store = ctx.suppressions();
  const ledger = new DynamoSuppressionSync(ctx.doc, ctx.target.suppressionTable, ctx.now);
  const report: ReconcileReport = { providers: {}, pushed: 0, imported: 0 };
  for (const target of targets) {
    const provider = target.provider;
    const entries = new Map<string, ProviderListEntry[]>();
    await target.list((page) => {
      for (const entry of page) {
        const email = normalizeRecipient(entry.email);
        entries.set(email, [...(entries.get(email) ?? []), { ...entry, email }]);
      }
    });
    const context = { aliases, handlesScope: (scope: string) => target.handlesScope(scope) };
    const drift: ProviderDrift = { missingAtProvider: [], missingInRatchet: [], informational: [], refused: [] };
    const handle = async (email: string, record: (SuppressionRecord & { sync?: SyncMap }) | undefined) => {
      const found = compareAddress(email, record, record?.sync?.[provider], entries.get(email) ?? [], context);
      drift.missingAtProvider.push(...found.missingAtProvider);
      drift.missingInRatchet.push(...found.missingInRatchet);
      drift.informational.push(...found.informational);
      drift.refused.push(...found.refused);
      if (!options.apply) return;
      for (const operation of found.push) {
        const outcome = await target.apply(operation);
        await recordPush(ledger, provider, operation, outcome, ctx.now());
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
    };
    const seen = new Set<string>();
    await store.scan({}, async (records) => {
      for (const record of records) {
        seen.add(record.email);
        await handle(record.email, record as SuppressionRecord & { sync?: SyncMap });
      }
    });
    for (const email of entries.keys()) if (!seen.has(email)) await handle(email, undefined);
    report.providers[provider] = drift;
  }
  return report;
}

/** The push lands in the `sync` map like the worker's, so the planner knows the provider holds it. */
async function recordPush(
  ledger: DynamoSuppressionSync,
  provider: SyncProviderName,
  operation: SyncOperation,
  outcome: Awaited<ReturnType<SyncTarget['apply']>>,
  now: number,
): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const view = await ledger.read(operation.email);
    if (view === undefined) return;
    const state = recordOutcome(view.sync[provider], operation, outcome, now);
    if (await ledger.commit(operation.email, view.version, { ...view.sync, [provider]: state }, 'keep')) return;
  }
}
