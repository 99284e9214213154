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
 * class instances. The adapter adds its own `version` and `updatedAt` attributes, and every write the
 * shape's `schemaVersion` (schema.ts, which also reads any older shape into this one), which is why
 * none of those names appears here.
 */

import { type EventDetail, normalizeRecipient } from '../event.js';

/** Why an address is suppressed; the tuple order is the precedence used for `reason`. */
export const SUPPRESSION_REASONS = ['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce_limit', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/**
 * What one evidence entry records: the four suppressing kinds, soft bounces spending the budget, and
 * (in `topics` only) topic opt-ins, `subscribe`. A topic's opt-outs are `unsubscribe` entries.
 */
export const EVIDENCE_KINDS = [
  'complaint',
  'hard_bounce',
  'unsubscribe',
  'soft_bounce',
  'manual',
  'subscribe',
] as const;
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
  /** Topic evidence only: the provider's canonical topic name, when an alias stored it under another. */
  scope?: string;
  /**
   * The provider's id of the email the event was about (NormalizedEvent.messageId), when it sent one.
   * In `softBounces` it is what makes several bounces of one message one strike. Entries written
   * before it existed have none, and each of those counts on its own.
   */
  messageId?: string;
}

/**
 * One topic's state. `status` and `changedAt` are derived from `evidence`: the latest change by event
 * time wins, an opt-out winning a tie (see topics.ts in this folder).
 */
export interface TopicState {
  status: 'unsubscribed' | 'subscribed';
  /** The provider's event time of the change in effect, epoch ms. */
  changedAt: number;
  /** Opt-outs (`unsubscribe`) and opt-ins (`subscribe`), keyed like `evidence`; newest 20 kept. */
  evidence: Record<string, Evidence>;
}

/** A manual action, kept even after the evidence it created or cleared has been pruned. */
export interface AuditEntry {
  action: 'suppress' | 'reactivate';
  actor: string;
  reason: string;
  at: number;
  /** Set when the action was a manual topic opt-out (`suppress`) or restore (`reactivate`). */
  topic?: string;
}

export interface SuppressionRecord {
  email: string;
  /** Derived: `suppressed` iff `reasons` is non-empty. */
  status: 'active' | 'suppressed';
  /**
   * Derived: `suppressed` iff a reason other than `unsubscribe` is in effect. An unsubscribe withdraws
   * consent to subscription mail; it never blocks a password reset or a receipt.
   */
  transactionalStatus: 'active' | 'suppressed';
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
  /**
   * Derived: the evidence a reactivation discounted (dated at or before `reactivatedAt`), kept so the
   * record still says why the address was suppressed; it never counts. Present only when non-empty.
   * It shares each kind's cap with `evidence` (the newest N of both), which keeps it order-independent.
   */
  discounted?: Record<string, Evidence>;
  /**
   * The soft-bounce budget being spent: bounces after the latest delivery, keyed `<provider>#<eventId>`.
   * Entries sharing a provider and `messageId` are one strike (one message); each entry without one
   * is a strike of its own. Pruned and capped per message and overall (normalize.ts).
   */
  softBounces: Record<string, Evidence>;
  /** Per topic: opt-outs and opt-ins; never affects `status`, `reasons` or `transactionalStatus`. */
  topics: Record<string, TopicState>;
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
  | 'topic_unsubscribed'
  | 'topic_subscribed'
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
  return {
    email,
    status: 'active',
    transactionalStatus: 'active',
    reasons: [],
    evidence: {},
    softBounces: {},
    topics: {},
    audit: [],
  };
}

/** What an operation on `email` starts from: `record`, which must be that address's, or a new empty record. */
export function startingRecord(record: SuppressionRecord | undefined, email: string): SuppressionRecord {
  const address = normalizeRecipient(email);
  if (record !== undefined && record.email !== address)
    throw new TypeError('address does not match the suppression record');
  return record ?? emptyRecord(address);
}

export function isSuppressedRecord(record: SuppressionRecord | undefined): boolean {
  return record?.status === 'suppressed';
}
