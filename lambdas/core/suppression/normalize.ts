/**
 * The one place the record's rules live. Every operation (apply, reactivate, suppress, merge) only
 * grows the stored facts (max / min / union) and then calls `normalize`, which prunes, caps and
 * derives. Because pruning thresholds only grow, and capping keeps the newest entries of each kind,
 * pruning and capping commute with union: the result depends on the set of facts, not on the order
 * they arrived in. (The one deliberate exception is the sticky soft-bounce limit, see below.)
 */

import { isRecord } from '../json.js';
import { compareStrings, malformed, readEvidenceMap, unionEvidence } from './evidence.js';
import { AUDIT_CAP, evidenceCap, type RatchetPolicy, softBounceCap, softBouncesPerMessage } from './policy.js';
import {
  type AuditEntry,
  EVIDENCE_KINDS,
  type Evidence,
  type EvidenceKind,
  SUPPRESSION_REASONS,
  type SuppressionReason,
  type SuppressionRecord,
} from './record.js';
import { earliestCrossingStart, groupStrikes } from './soft-bounce.js';
import { deriveTopics, readTopics, type TopicFacts } from './topics.js';

export { pickEvidence, unionEvidence } from './evidence.js';

/** The stored facts; everything else in a SuppressionRecord is derived from these. */
export type Facts = Omit<SuppressionRecord, DerivedField | 'topics'> & { topics: TopicFacts };

/** The fields `normalize` recomputes from the facts on every write. */
type DerivedField = 'status' | 'transactionalStatus' | 'reason' | 'reasons' | 'suppressedAt' | 'discounted';

/**
 * Reads the facts out of a stored record (which may carry the adapter's `version`/`updatedAt`, or
 * come from an older writer). Derived fields are ignored and recomputed. A malformed item throws
 * rather than being "repaired": dropping evidence we cannot read could silently un-suppress someone.
 */
export function readFacts(record: SuppressionRecord): Facts {
  const r = record as unknown as Record<string, unknown>;
  if (typeof r['email'] !== 'string' || r['email'] === '') malformed('email');
  const facts: Facts = { email: r['email'] as string, evidence: {}, softBounces: {}, topics: {}, audit: [] };
  for (const field of [
    'firstEventAt',
    'lastEventAt',
    'lastDeliveredAt',
    'reactivatedAt',
    'softBounceLimitAt',
  ] as const) {
    const value = r[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) malformed(field);
    facts[field] = value;
  }
  const suppressing = (kind: EvidenceKind) => kind !== 'soft_bounce' && kind !== 'subscribe';
  // Discounted evidence is still a fact: normalize sorts it back out by `reactivatedAt`.
  facts.evidence = unionEvidence(
    readEvidenceMap(r['evidence'], 'evidence', suppressing),
    readEvidenceMap(r['discounted'], 'discounted', suppressing),
  );
  facts.topics = readTopics(r['topics']);
  facts.softBounces = readEvidenceMap(r['softBounces'], 'softBounces', (kind) => kind === 'soft_bounce');
  const audit = r['audit'] ?? [];
  if (!Array.isArray(audit)) malformed('audit');
  facts.audit = audit.map(readAudit);
  return facts;
}

function readAudit(value: unknown): AuditEntry {
  if (!isRecord(value)) malformed('audit entry');
  const { action, actor, reason, at, topic } = value;
  if (action !== 'suppress' && action !== 'reactivate') malformed('audit action');
  if (typeof actor !== 'string' || typeof reason !== 'string') malformed('audit actor/reason');
  if (typeof at !== 'number' || !Number.isFinite(at)) malformed('audit at');
  if (topic !== undefined && topic !== null && typeof topic !== 'string') malformed('audit topic');
  return typeof topic === 'string' ? { action, actor, reason, at, topic } : { action, actor, reason, at };
}

function compareAudit(a: AuditEntry, b: AuditEntry): number {
  return (
    a.at - b.at ||
    compareStrings(a.action, b.action) ||
    compareStrings(a.actor, b.actor) ||
    compareStrings(a.reason, b.reason) ||
    compareStrings(a.topic ?? '', b.topic ?? '')
  );
}

/** Set union (by content), oldest first, keeping the newest AUDIT_CAP: the top-K of a union is order-free. */
export function unionAudit(...lists: AuditEntry[][]): AuditEntry[] {
  const unique = new Map<string, AuditEntry>();
  for (const list of lists)
    for (const entry of list)
      unique.set(
        `${entry.at}\u0000${entry.action}\u0000${entry.actor}\u0000${entry.reason}\u0000${entry.topic ?? ''}`,
        entry,
      );
  const sorted = [...unique.values()].sort(compareAudit);
  return sorted.slice(Math.max(0, sorted.length - AUDIT_CAP));
}

export function minDefined(...values: Array<number | undefined>): number | undefined {
  let result: number | undefined;
  for (const v of values) if (v !== undefined && (result === undefined || v < result)) result = v;
  return result;
}

export function maxDefined(...values: Array<number | undefined>): number | undefined {
  let result: number | undefined;
  for (const v of values) if (v !== undefined && (result === undefined || v > result)) result = v;
  return result;
}

const REASON_OF_KIND: Record<Exclude<EvidenceKind, 'soft_bounce' | 'subscribe'>, SuppressionReason> = {
  complaint: 'complaint',
  hard_bounce: 'hard_bounce',
  unsubscribe: 'unsubscribe',
  manual: 'manual',
};

type Keyed = [key: string, entry: Evidence];

/** Newest first by (occurredAt, key): a total order, so "keep the first N" is well defined. */
function newestFirst(a: Keyed, b: Keyed): number {
  return b[1].occurredAt - a[1].occurredAt || compareStrings(b[0], a[0]);
}

/**
 * Facts → record. In order:
 * 1. Prune: evidence dated at/before `reactivatedAt` no longer counts; soft bounces dated at/before
 *    `lastDeliveredAt` no longer count. Both thresholds only grow, so a pruned entry would be pruned
 *    in any order; a pruned entry arriving later is pruned on arrival.
 * 2. Soft-bounce budget, on the soft bounces left, counted by message (soft-bounce.ts): each message
 *    keeps its newest N entries (softBouncesPerMessage) and is one strike, and the start of the
 *    earliest run of `limit` strikes with bounces inside one window is min-merged into
 *    `softBounceLimitAt`. That field is sticky: a
 *    later-arriving, later-dated delivery prunes the bounces but not the crossing (the documented
 *    exception to order independence). The value is the run's FIRST bounce, so a run that touches
 *    the reactivation (any bounce dated at/before `reactivatedAt`) is dropped whole, and re-derived
 *    from the surviving bounces if they still cross. (The run's last bounce would not do: a run
 *    straddling the reactivation would survive it.)
 * 3. Cap: keep the newest N entries of each kind (soft bounces: of the per-message survivors).
 *    Pruning removes the oldest entries of a kind, so "prune then cap" equals "cap then prune" and
 *    the cap is order-independent too; the same holds per message. Soft bounces need two more rules,
 *    because a run could hide among entries a cap dropped (and would be seen or not depending on
 *    arrival order): a message holding its per-message maximum counts in every window up to its
 *    newest bounce (see Strike.full), and holding a full soft-bounce cap since the latest delivery
 *    counts as crossing the limit (start: the oldest kept). The per-message maximum is small enough
 *    that a full cap spans at least `limit` messages, so neither rule lets fewer messages than the
 *    limit suppress. In those regimes the status is still order-independent, the exact
 *    `softBounceLimitAt` value may not be.
 * 4. Derive status, transactionalStatus, reasons (by precedence), reason and suppressedAt.
 * 5. Topics: each topic's newest N entries, and its status from the top one (topics.ts). Neither
 *    `reactivatedAt` nor `lastDeliveredAt` prunes them: topics are consent, not deliverability.
 */
export function normalize(facts: Facts, policy: RatchetPolicy): SuppressionRecord {
  const reactivatedAt = facts.reactivatedAt ?? -Infinity;
  const deliveredAt = facts.lastDeliveredAt ?? -Infinity;

  const byKind = new Map<EvidenceKind, Keyed[]>(EVIDENCE_KINDS.map((k) => [k, []]));
  for (const [key, entry] of [...Object.entries(facts.evidence), ...Object.entries(facts.softBounces)]) {
    if (entry.kind === 'soft_bounce' && (entry.occurredAt <= reactivatedAt || entry.occurredAt <= deliveredAt))
      continue;
    byKind.get(entry.kind)!.push([key, entry]);
  }
  for (const list of byKind.values()) list.sort(newestFirst);

  const { kept: perMessage, strikes } = groupStrikes(byKind.get('soft_bounce')!, softBouncesPerMessage(policy));
  const runStart = earliestCrossingStart(strikes, policy.softBounceLimit, policy.softBounceWindowMs);
  const keptSoft = perMessage.slice(0, softBounceCap(policy));
  const fullCapStart =
    keptSoft.length >= softBounceCap(policy) ? keptSoft[keptSoft.length - 1]![1].occurredAt : undefined;
  const stickyLimit =
    facts.softBounceLimitAt !== undefined && facts.softBounceLimitAt > reactivatedAt
      ? facts.softBounceLimitAt
      : undefined;
  const softBounceLimitAt = minDefined(stickyLimit, runStart, fullCapStart);

  // Each kind's newest N, then split by the reactivation: entries after it count, the rest are kept as
  // `discounted`. The entries after it are the newest, so what counts is exactly "prune, then cap".
  const kept: Keyed[] = [];
  const discounted: Keyed[] = [];
  for (const kind of EVIDENCE_KINDS) {
    if (kind === 'soft_bounce' || kind === 'subscribe') continue;
    for (const keyed of byKind.get(kind)!.slice(0, evidenceCap(policy)))
      (keyed[1].occurredAt > reactivatedAt ? kept : discounted).push(keyed);
  }
  kept.sort((a, b) => newestFirst(b, a));
  discounted.sort((a, b) => newestFirst(b, a));

  const inEffect = new Set<SuppressionReason>();
  let suppressedAt = softBounceLimitAt;
  if (softBounceLimitAt !== undefined) inEffect.add('soft_bounce_limit');
  for (const [, entry] of kept) {
    if (entry.kind === 'soft_bounce' || entry.kind === 'subscribe') continue; // (never: readFacts refuses them; narrows the type)
    inEffect.add(REASON_OF_KIND[entry.kind]);
    suppressedAt = minDefined(suppressedAt, entry.occurredAt);
  }
  const reasons = SUPPRESSION_REASONS.filter((r) => inEffect.has(r));

  // Fixed key order, absent fields omitted (never `undefined`): the item is stable byte for byte,
  // not only deep-equal, and reads top-down in the console (status and reason first).
  const status = reasons.length > 0 ? 'suppressed' : 'active';
  const transactionalStatus = reasons.some((r) => r !== 'unsubscribe') ? 'suppressed' : 'active';
  const record: SuppressionRecord = { email: facts.email, status, transactionalStatus } as SuppressionRecord;
  if (reasons.length > 0) record.reason = reasons[0]!;
  record.reasons = reasons;
  if (reasons.length > 0) record.suppressedAt = suppressedAt!;
  if (facts.firstEventAt !== undefined) record.firstEventAt = facts.firstEventAt;
  if (facts.lastEventAt !== undefined) record.lastEventAt = facts.lastEventAt;
  if (facts.lastDeliveredAt !== undefined) record.lastDeliveredAt = facts.lastDeliveredAt;
  if (facts.reactivatedAt !== undefined) record.reactivatedAt = facts.reactivatedAt;
  if (softBounceLimitAt !== undefined) record.softBounceLimitAt = softBounceLimitAt;
  record.evidence = Object.fromEntries(kept);
  if (discounted.length > 0) record.discounted = Object.fromEntries(discounted);
  record.softBounces = Object.fromEntries([...keptSoft].reverse());
  record.topics = deriveTopics(facts.topics, evidenceCap(policy));
  record.audit = unionAudit(facts.audit);
  return record;
}
