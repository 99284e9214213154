/**
 * Drift between Ratchet and one provider, for one address. Pure: the CLI pulls the provider's lists
 * (SyncTarget.list) and Ratchet's records, and asks this what differs.
 *
 * Every list entry is judged by its scope. A global entry (no `scope`) stands for a global
 * suppression. A scope entry (a SendGrid group, a Postmark stream that TOPIC_ALIASES names) stands for
 * that topic's opt-out; one whose list also receives global suppressions (`globalList`: a Postmark
 * stream that is in POSTMARK_STREAMS too) stands for either, so either explains it.
 *
 * - missingAtProvider: Ratchet suppresses the address (globally, or for a topic mapped to a scope the
 *   provider holds) and the provider's list lacks it. The global list expected is the one Ratchet
 *   pushed to (the record's `sync` map); `global` when it never pushed there.
 * - missingInRatchet: the provider lists it and nothing in Ratchet explains it. A scope entry is
 *   explained by that topic opted out (or, for a `globalList` one, by a global suppression), and when
 *   unexplained it is imported as the topic's opt-out, never as a global suppression. An entry dated
 *   at or before a manual reactivation (or the topic's opt-in) is Ratchet's deliberate decision, not
 *   drift, and so is one on a list (or scope) Ratchet put the address on and has not recorded removing
 *   it from since (the removal is the worker's job, and a refused one is reported on the record).
 * - informational: temporary refusals (SendGrid blocks), and scope entries whose scope is no topic name
 *   (a Mailgun tag with a space): listed, never drift.
 */
import type { EvidenceKind, SuppressionRecord, TopicState } from '../suppression/record.js';
import { isTopicName, resolveTopic, topicsUnderAliases } from '../topics.js';
import { type PlanContext, providerScopes } from './plan.js';
import type { ProviderSyncState } from './state.js';
import type { ProviderListEntry, SyncOperation } from './target.js';

/** The part of a record reconcile reads: what the CLI keeps of each record while it compares. */
export type ReconcileRecord = Pick<SuppressionRecord, 'status' | 'reason' | 'reactivatedAt'> & {
  topics?: Record<string, Pick<TopicState, 'status' | 'changedAt'>>;
};

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
  record: ReconcileRecord | undefined,
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
  const holdsGlobal = real.filter((e) => e.scope === undefined || e.globalList === true);
  const scopeEntries = real.filter((e) => e.scope !== undefined);
  const suppressed = record?.status === 'suppressed' && record.reason !== undefined;

  /** A removal of this list the provider refused for good: reported, and not drift. */
  const refusedRemoval = (entry: ProviderListEntry): boolean => {
    const refusal = pushed?.refused?.find((r) => r.list === entry.list);
    if (refusal) drift.refused.push({ email, list: entry.list, why: refusal.why });
    return refusal !== undefined;
  };
  /** A removal the provider refused (reported), or an entry older than the manual reactivation. */
  const ratchetsDecision = (entry: ProviderListEntry): boolean => {
    return (
      refusedRemoval(entry) ||
      (record?.reactivatedAt !== undefined && entry.date !== undefined && entry.date <= record.reactivatedAt) ||
      // Reactivated, and the list is one Ratchet put it on: the worker's removal is still to come (or was
      // dead-lettered), whatever the entry's date says or when it has none.
      (record?.reactivatedAt !== undefined && pushed?.reason !== undefined && (pushed.lists ?? []).includes(entry.list))
    );
  };

  if (suppressed) {
    const held = new Set(holdsGlobal.map((e) => e.list));
    const expected = pushed?.lists?.length ? pushed.lists : [];
    const missing = expected.length > 0 ? expected.filter((l) => !held.has(l)) : held.size === 0 ? ['global'] : [];
    for (const list of missing) drift.missingAtProvider.push({ email, list });
    if (missing.length > 0) drift.push.push({ op: 'suppress', email, reason: record.reason! });
  } else {
    for (const entry of real.filter((e) => e.scope === undefined)) {
      if (ratchetsDecision(entry)) continue;
      drift.missingInRatchet.push(shown(entry));
      drift.imports.push({ entry: shown(entry), kind: evidenceKind(entry) });
    }
  }

  const heldScopes = new Set(scopeEntries.map((e) => e.scope!));
  // Through today's aliases, as the planner reads them: an opt-out stored before its alias is the alias's.
  const topics = topicsUnderAliases(record?.topics, context.aliases);
  for (const [topic, state] of Object.entries(topics)) {
    if (state.status !== 'unsubscribed') continue;
    for (const scope of providerScopes(topic, context)) {
      if (heldScopes.has(scope)) continue;
      drift.missingAtProvider.push({ email, list: scope });
      drift.push.push({ op: 'suppressScope', email, scope });
    }
  }
  for (const entry of scopeEntries) {
    // A scope Ratchet cannot name as a topic (a Mailgun tag with a space in it) can be neither explained
    // nor imported: listed, never drift, so `--apply` does not stop on it and a second run is clean.
    if (!isTopicName(entry.scope)) {
      drift.informational.push(shown(entry));
      continue;
    }
    const state = topics[resolveTopic(entry.scope!, context.aliases)];
    if (state?.status === 'unsubscribed') continue;
    if (state !== undefined && entry.date !== undefined && entry.date <= state.changedAt) continue;
    // Opted in again, and the scope is one Ratchet suppressed it in: the worker's removal is still to come
    // (or was dead-lettered). A SendGrid group's list carries no dates, so only this tells it apart from a
    // new opt-out, which an import would turn against the opt-in.
    if (state?.status === 'subscribed' && (pushed?.scopes?.[entry.scope!] !== undefined || refusedRemoval(entry)))
      continue;
    if (entry.globalList === true && (suppressed || ratchetsDecision(entry))) continue;
    drift.missingInRatchet.push(shown(entry));
    drift.imports.push({ entry: shown(entry), kind: 'unsubscribe', topic: entry.scope! });
  }
  return drift;
}

/** The provider's words → the kind of evidence an import records (a complaint, a hard bounce, an unsubscribe, or manual). */
export function evidenceKind(entry: Pick<ProviderListEntry, 'list' | 'reason'>): EvidenceKind {
  // A Mailgun list carries its sending domain (`unsubscribes@bounce.example.com`): only the list's own name speaks.
  const list = entry.list.split('@')[0]!;
  const text = `${list} ${entry.reason ?? ''}`;
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
