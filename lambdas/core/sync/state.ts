/**
 * What Ratchet last pushed to one provider, as the record's `sync` map keeps it
 * (`sync: {ses: {at, reason, lists}, sendgrid: {...}}`), and how an answer updates it. Pure.
 *
 * The planner compares this with the record and derives what is still to do, so the state must say
 * exactly what the provider now holds because of Ratchet: the global lists it put the address on, and
 * per topic scope the lists it put it on. Nothing else.
 */
import type { SuppressionReason } from '../suppression/record.js';
import type { SyncOperation, SyncOutcome, SyncProviderName } from './target.js';

export interface RefusedList {
  readonly list: string;
  readonly why: string;
}

export interface ProviderSyncState {
  /** When this state last changed (the last answer recorded), epoch ms. */
  at: number;
  /** The record's sync change counter this provider has caught up with (nothing left to push for it). */
  change?: number;
  /** Ratchet's reason last pushed as a global suppression; absent when none is in effect at the provider. */
  reason?: SuppressionReason;
  /** The provider's own word for it, where it differs (SES `BOUNCE` for an unsubscribe). */
  providerReason?: string;
  /** The global lists Ratchet put the address on, in the provider's words. */
  lists: string[];
  /** Topic scopes Ratchet suppressed the address in → the provider's lists for them. */
  scopes?: Record<string, string[]>;
  /** Removals the provider refused for good (Postmark keeps spam complaints): reported, never retried. */
  refused?: RefusedList[];
  /** The answer to the latest manual reactivation: which lists were emptied, which refused, tied to the audit entry's `at`. */
  reactivation?: { auditAt: number; removed: string[]; refused: RefusedList[] };
  /**
   * The first counted failure (a 5xx, a network error, a timeout) of change `change` at this provider:
   * the retry horizon runs from `since`. A 429 or a shared pause is waiting and never sets it, and a
   * wait after it moves it forward by the time waited (push.ts recordWait), so waiting never counts;
   * time queued behind a backlog is before the first attempt and never counts. Dropped once caught up.
   */
  retrying?: { change: number; since: number };
  /** Set when the change `change` ran out of retries and went to the sync dead letters. */
  failed?: { at: number; change: number; error: string };
}

export type SyncMap = Partial<Record<SyncProviderName, ProviderSyncState>>;

const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();

/** Refusals as a set, one per list (the latest reason wins): an opt-out/opt-in cycle never appends a duplicate. */
function refusedSet(previous: readonly RefusedList[], added: readonly RefusedList[]): RefusedList[] {
  const byList = new Map(previous.map((r) => [r.list, r] as const));
  for (const r of added) byList.set(r.list, { list: r.list, why: r.why });
  return [...byList.values()].sort((a, b) => (a.list < b.list ? -1 : a.list > b.list ? 1 : 0));
}

/**
 * The state after the provider answered `outcome` to `operation` at `at`. `auditAt` is the `at` of the
 * manual reactivation an `unsuppress` carries out, so its answer can be read beside that audit entry.
 */
export function recordOutcome(
  state: ProviderSyncState | undefined,
  operation: SyncOperation,
  outcome: SyncOutcome,
  at: number,
  auditAt?: number,
): ProviderSyncState {
  const previous: ProviderSyncState = state ?? { at, lists: [] };
  const refused = outcome.refused ?? [];
  const { failed: _failed, ...base } = previous;
  const next: ProviderSyncState = { ...base, at };
  switch (operation.op) {
    case 'suppress':
      next.reason = operation.reason;
      if (outcome.providerReason !== undefined) next.providerReason = outcome.providerReason;
      else delete next.providerReason;
      next.lists = union(previous.lists, outcome.lists);
      // Suppressed again: a removal once refused no longer matters.
      delete next.refused;
      return next;
    case 'unsuppress':
      // Every list Ratchet pushed to was asked; what the provider refused is kept as refused, not retried.
      delete next.reason;
      delete next.providerReason;
      next.lists = [];
      next.refused = refused.length > 0 ? refusedSet([], refused) : undefined;
      if (next.refused === undefined) delete next.refused;
      next.reactivation = { auditAt: auditAt ?? at, removed: [...outcome.lists], refused: [...refused] };
      return next;
    case 'suppressScope': {
      const lists = outcome.lists.length > 0 ? [...outcome.lists] : [operation.scope];
      next.scopes = { ...previous.scopes, [operation.scope]: lists };
      // Suppressed there again: a removal once refused from those lists is stale, and must not park the marker.
      const live = (previous.refused ?? []).filter((r) => !lists.includes(r.list) && r.list !== operation.scope);
      if (live.length > 0) next.refused = live;
      else delete next.refused;
      return next;
    }
    case 'unsuppressScope': {
      const scopes = { ...previous.scopes };
      delete scopes[operation.scope];
      next.scopes = scopes;
      if (Object.keys(scopes).length === 0) delete next.scopes;
      if (refused.length > 0) next.refused = refusedSet(previous.refused ?? [], refused);
      return next;
    }
  }
}
