/**
 * The sync planner: from a suppression record and what Ratchet last pushed to one provider, the
 * operations that bring the provider in line. Pure, and state-based rather than change-based: it looks
 * at where the record is now, never at how it got there, so a lost, duplicated or reordered message
 * cannot make it push the wrong thing, and planning again after the answers are recorded yields nothing.
 *
 * - A global suppression (`status` suppressed) → `suppress` with the record's reason, again whenever
 *   that reason changes (an unsubscribe later confirmed by a complaint becomes SES `COMPLAINT`).
 * - Active again after Ratchet pushed a suppression → `unsuppress` of exactly the lists it pushed to,
 *   and only when an audited manual reactivation is on the record: the ratchet has no other way back to
 *   active, and nothing automatic may lift a suppression at a provider either.
 * - A topic opted out → `suppressScope` for every provider scope that is that topic, or whose
 *   TOPIC_ALIASES alias is that topic; opted in again → `unsuppressScope` where Ratchet suppressed it.
 *   Topics are read through today's aliases (topicsUnderAliases): one stored under a canonical name
 *   before an alias mapped it is the alias's, so the alias's other scopes get it too.
 *   Never global: a group unsubscribe stays a group unsubscribe everywhere.
 */
import type { SuppressionRecord } from '../suppression/record.js';
import { type TopicAliases, topicsUnderAliases } from '../topics.js';
import type { ProviderSyncState } from './state.js';
import type { SyncOperation } from './target.js';

export interface PlanContext {
  /** Whether the provider can hold this canonical scope (SyncTarget.handlesScope). */
  handlesScope(scope: string): boolean;
  aliases: TopicAliases;
}

export function planSync(
  record: SuppressionRecord | undefined,
  pushed: ProviderSyncState | undefined,
  context: PlanContext,
): SyncOperation[] {
  if (record === undefined) return [];
  const operations: SyncOperation[] = [];
  const email = record.email;
  if (record.status === 'suppressed' && record.reason !== undefined) {
    if (pushed?.reason !== record.reason) operations.push({ op: 'suppress', email, reason: record.reason });
  } else if (pushed?.reason !== undefined && manuallyReactivated(record)) {
    operations.push({ op: 'unsuppress', email, lists: [...pushed.lists] });
  }
  const pushedScopes = pushed?.scopes ?? {};
  // Read through today's aliases: an opt-out stored before its alias was set speaks for the alias's scopes.
  const topics = Object.entries(topicsUnderAliases(record.topics, context.aliases));
  for (const [topic, state] of topics.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const scope of providerScopes(topic, context)) {
      const isPushed = Object.hasOwn(pushedScopes, scope);
      if (state.status === 'unsubscribed' && !isPushed) operations.push({ op: 'suppressScope', email, scope });
      if (state.status === 'subscribed' && isPushed) operations.push({ op: 'unsuppressScope', email, scope });
    }
  }
  return operations;
}

/** An audited manual reactivation (not a topic restore) dated at `reactivatedAt`. */
export function manuallyReactivated(record: SuppressionRecord): boolean {
  const at = record.reactivatedAt;
  return (
    at !== undefined &&
    (record.audit ?? []).some((entry) => entry.action === 'reactivate' && entry.topic === undefined && entry.at === at)
  );
}

/**
 * The canonical scopes a stored topic stands for: every canonical name aliased to it, and the topic
 * itself unless an alias now stores it under another name (then that other topic speaks for it).
 */
export function providerScopes(topic: string, context: PlanContext): string[] {
  const scopes = new Set<string>();
  if (!context.aliases.has(topic)) scopes.add(topic);
  for (const [canonical, alias] of context.aliases) if (alias === topic) scopes.add(canonical);
  return [...scopes].filter((scope) => context.handlesScope(scope)).sort();
}
