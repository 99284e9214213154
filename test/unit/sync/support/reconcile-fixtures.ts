/** One address's records, pushed states, list entries and expected drift, for the compareAddress tests. */
import { emptyRecord, type SuppressionRecord } from '../../../../lambdas/core/suppression/record.js';
import type { PlanContext } from '../../../../lambdas/core/sync/plan.js';
import type { Drift } from '../../../../lambdas/core/sync/reconcile.js';
import type { ProviderSyncState } from '../../../../lambdas/core/sync/state.js';
import type { ProviderListEntry } from '../../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../../lambdas/core/topics.js';

export const EMAIL = 'someone@example.com';
export const T = Date.UTC(2024, 0, 1);

export const record = (over: Partial<SuppressionRecord> = {}): SuppressionRecord => ({
  ...emptyRecord(EMAIL),
  ...over,
});

export const suppressed = (over: Partial<SuppressionRecord> = {}) =>
  record({
    status: 'suppressed',
    transactionalStatus: 'suppressed',
    reason: 'complaint',
    reasons: ['complaint'],
    ...over,
  });

export const topic = (status: 'unsubscribed' | 'subscribed', changedAt = T) => ({ status, changedAt, evidence: {} });

export const pushedTo = (lists: string[], over: Partial<ProviderSyncState> = {}): ProviderSyncState => ({
  at: T,
  reason: 'complaint',
  lists,
  ...over,
});

export const entry = (list: string, over: Partial<ProviderListEntry> = {}): ProviderListEntry => ({
  email: EMAIL,
  list,
  ...over,
});

/** A drift with nothing in it. */
export const empty: Drift = {
  missingAtProvider: [],
  missingInRatchet: [],
  informational: [],
  refused: [],
  push: [],
  imports: [],
};

/** A drift with every group named: the groups not given are empty. */
export const drift = (over: Partial<Drift>): Drift => ({ ...empty, ...over });

/** SendGrid-like: holds its groups, nothing else. */
export const groups: PlanContext = {
  aliases: NO_TOPIC_ALIASES,
  handlesScope: (s) => s.startsWith('sendgrid:group:'),
};
export const noScopes: PlanContext = { aliases: NO_TOPIC_ALIASES, handlesScope: () => false };
