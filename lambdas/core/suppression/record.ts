/**
 * The suppression record: one per address, and exactly the DynamoDB item of the public suppression
 * table (partition key `email`). Sending code reads `status`; everything else is explanation.
 *
 * The record is a state-based CRDT: every stored field either merges by max, by min or by union
 * (maps keyed by event id), and the remaining fields (`status`, `reason`, `reasons`, `suppressedAt`)
 * are derived from those on every write. That is what makes the result independent of the order and
 * the duplication of events, and what lets two records for the same address be merged.
 *
 * Only plain JSON values are stored: no `undefined` (absent optional fields are omitted), no Dates, no
 * class instances. The adapter adds its own `version` and `updatedAt` attributes, which is why neither
 * name appears here.
 */

import type { EventDetail } from '../event.js';

/** Why an address is suppressed; the tuple order is the precedence used for `reason`. */
export const SUPPRESSION_REASONS = ['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce_limit', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** What one evidence entry records: the four suppressing kinds, plus soft bounces spending the budget. */
export const EVIDENCE_KINDS = ['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce', 'manual'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/**
 * One event (or one manual suppression) that counts towards suppression. Small on purpose: the raw
 * payload lives in the inbox table; this is the "why" a human reads, and it has to fit 400 KB times over.
 */
export interface Evidence extends EventDetail {
  kind: EvidenceKind;
  /** The provider's event time (or the action's `at`), epoch ms. */
  occurredAt: number;
  /** Provider name; `manual` for manual suppressions. */
  provider: string;
  /** Manual suppressions only: who, and the free-text reason they gave. */
  actor?: string;
  note?: string;
}

/** A manual action, kept even after the evidence it created or cleared has been pruned. */
export interface AuditEntry {
  action: 'suppress' | 'reactivate';
  actor: string;
  reason: string;
  at: number;
}

export interface SuppressionRecord {
  email: string;
  /** Derived: `suppressed` iff `reasons` is non-empty. */
  status: 'active' | 'suppressed';
  /** Derived: `reasons[0]`, present iff suppressed. */
  reason?: SuppressionReason;
  /** Derived: every reason currently in effect, by precedence. */
  reasons: SuppressionReason[];
  /** Derived: earliest `occurredAt` among the suppressing evidence in effect (and `softBounceLimitAt`). */
  suppressedAt?: number;
  /** Min over every actionable event ever applied (history; reactivation does not reset it). */
  firstEventAt?: number;
  /** Max over every actionable event ever applied. */
  lastEventAt?: number;
  /** Max `occurredAt` of `delivered` events. Soft bounces dated at or before it do not count. */
  lastDeliveredAt?: number;
  /** Max `at` of manual reactivations. Evidence dated at or before it does not count. */
  reactivatedAt?: number;
  /**
   * Start of the earliest soft-bounce run that crossed the limit (min-merged), kept while it is after
   * `reactivatedAt`. Sticky: a delivery arriving later does not clear it, only a reactivation does.
   */
  softBounceLimitAt?: number;
  /**
   * Why the address is suppressed: complaint, hard_bounce, unsubscribe and manual entries, keyed
   * `<kind>:<provider>#<eventId>` (manual: `manual:<at>`). Union; pruned and capped (normalize.ts).
   */
  evidence: Record<string, Evidence>;
  /** The soft-bounce budget being spent: bounces after the latest delivery, keyed `<provider>#<eventId>`. */
  softBounces: Record<string, Evidence>;
  /** Manual actions, oldest first; union, capped to the newest entries. */
  audit: AuditEntry[];
}

/**
 * What an operation did, for logs and metrics. `changed` (not the effect) says whether the item must
 * be written: a late event can move a history field such as `firstEventAt` without any other effect.
 */
export type Effect =
  | 'suppressed'
  | 'reason_added'
  | 'evidence_added'
  | 'soft_bounce_counted'
  | 'superseded_by_delivery'
  | 'delivery_recorded'
  | 'reactivated'
  | 'no_change'
  | 'ignored_before_reactivation';

export interface ApplyResult {
  record: SuppressionRecord;
  /** The record differs from the one passed in (or none was passed in): write it. */
  changed: boolean;
  effect: Effect;
  /** Was not suppressed before (or did not exist), is suppressed now. */
  becameSuppressed: boolean;
}

export function emptyRecord(email: string): SuppressionRecord {
  return { email, status: 'active', reasons: [], evidence: {}, softBounces: {}, audit: [] };
}

export function isSuppressedRecord(record: SuppressionRecord | undefined): boolean {
  return record?.status === 'suppressed';
}
