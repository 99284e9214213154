/**
 * Drift between Ratchet and one provider, for one address. Pure: the CLI pulls the provider's lists
 * (SyncTarget.list) and Ratchet's records, and asks this what differs.
 *
 * - missingAtProvider: Ratchet suppresses the address (globally, or for a topic mapped to a scope the
 *   provider holds) and the provider's list lacks it. The global list expected is the one Ratchet
 *   pushed to (the record's `sync` map); `global` when it never pushed there.
 * - missingInRatchet: the provider lists it and Ratchet does not suppress it. A scope entry counts as
 *   present when Ratchet has that topic opted out, and is never read as a global suppression. An entry
 *   dated at or before a manual reactivation is Ratchet's deliberate decision, not drift (the removal is
 *   the worker's job, and a refused one is reported on the record).
 * - informational: temporary refusals (SendGrid blocks), listed, never drift.
 */
import type { EvidenceKind, SuppressionRecord } from '../suppression/record.js';
import { resolveTopic } from '../topics.js';
import { type PlanContext, providerScopes } from './plan.js';
import type { ProviderSyncState } from './state.js';
import type { ProviderListEntry, SyncOperation } from './target.js';

export interface MissingAtProvider {
  email: string;
  list: string;
}

export interface MissingInRatchet {
  email: string;
  list: string;
  reason?: string;
  date?: number;
}

export interface Drift {
  missingAtProvider: MissingAtProvider[];
  missingInRatchet: MissingInRatchet[];
  informational: MissingInRatchet[];
  /** Reactivated in Ratchet, kept by the provider, which refused the removal (Postmark spam complaints): reported, never retried. */
  refused: Array<{ email: string; list: string; why: string }>;
  /** What `--apply` pushes for the first group. */
  push: SyncOperation[];
  /** What `--apply` imports for the second: global evidence, or a topic opt-out. */
  imports: Array<{ entry: MissingInRatchet; kind: EvidenceKind; topic?: string }>;
}

export function compareAddress(
  email: string,
  record: SuppressionRecord | undefined,
  pushed: ProviderSyncState | undefined,
  entries: readonly ProviderListEntry[],
  context: PlanContext,
): Drift {
  const drift: Drift = {
    missingAtProvider: [],
    missingInRatchet: [],
    informational: [],
    refused: [],
    push: [],
    imports: [],
  };
  const real = entries.filter((e) => !e.informational);
  for (const entry of entries.filter((e) => e.informational)) drift.informational.push(shown(entry));
  const globalEntries = real.filter((e) => e.scope === undefined);
  const scopeEntries = real.filter((e) => e.scope !== undefined);

  if (record?.status === 'suppressed' && record.reason !== undefined) {
    const held = new Set(globalEntries.map((e) => e.list));
    const expected = pushed?.lists?.length ? pushed.lists : [];
    const missing = expected.length > 0 ? expected.filter((l) => !held.has(l)) : held.size === 0 ? ['global'] : [];
    for (const list of missing) drift.missingAtProvider.push({ email, list });
    if (missing.length > 0) drift.push.push({ op: 'suppress', email, reason: record.reason });
  } else {
    for (const entry of globalEntries) {
      const refusal = pushed?.refused?.find((r) => r.list === entry.list);
      if (refusal) {
        drift.refused.push({ email, list: entry.list, why: refusal.why });
        continue;
      }
      if (record?.reactivatedAt !== undefined && entry.date !== undefined && entry.date <= record.reactivatedAt)
        continue;
      drift.missingInRatchet.push(shown(entry));
      drift.imports.push({ entry: shown(entry), kind: evidenceKind(entry) });
    }
  }

  const heldScopes = new Set(scopeEntries.map((e) => e.scope!));
  for (const [topic, state] of Object.entries(record?.topics ?? {})) {
    if (state.status !== 'unsubscribed') continue;
    for (const scope of providerScopes(topic, context)) {
      if (heldScopes.has(scope)) continue;
      drift.missingAtProvider.push({ email, list: scope });
      drift.push.push({ op: 'suppressScope', email, scope });
    }
  }
  for (const entry of scopeEntries) {
    const topic = resolveTopic(entry.scope!, context.aliases);
    if (record?.topics?.[topic]?.status === 'unsubscribed') continue;
    const changedAt = record?.topics?.[topic]?.changedAt;
    if (changedAt !== undefined && entry.date !== undefined && entry.date <= changedAt) continue;
    drift.missingInRatchet.push(shown(entry));
    drift.imports.push({ entry: shown(entry), kind: 'unsubscribe', topic: entry.scope! });
  }
  return drift;
}

/** The provider's words → the kind of evidence an import records (a complaint, a hard bounce, an unsubscribe, or manual). */
export function evidenceKind(entry: Pick<ProviderListEntry, 'list' | 'reason'>): EvidenceKind {
  const text = `${entry.list} ${entry.reason ?? ''}`;
  if (/complain|spam|abuse/i.test(text)) return 'complaint';
  if (/bounce|invalid/i.test(text)) return 'hard_bounce';
  if (/unsub/i.test(text)) return 'unsubscribe';
  return 'manual';
}

function shown(entry: ProviderListEntry): MissingInRatchet {
  return {
    email: entry.email,
    list: entry.list,
    ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
    ...(entry.date !== undefined ? { date: entry.date } : {}),
  };
}
