/**
 * The two things only a human does: suppress an address by hand, and reactivate one. Reactivation is
 * the ONLY way from suppressed back to active; nothing a provider sends can do it.
 */
import { isTopicName, NO_TOPIC_ALIASES, resolveTopic } from '../topics.js';
import { topicEffect } from './apply.js';
import { evidenceKey, manualKey } from './keys.js';
import { maxDefined, normalize, readFacts, unionAudit, unionEvidence } from './normalize.js';
import { assertPolicy, DEFAULT_RATCHET_POLICY, type RatchetPolicy } from './policy.js';
import { type ApplyResult, type AuditEntry, type Effect, type SuppressionRecord, startingRecord } from './record.js';
import { clip, result } from './result.js';
import { unionTopics } from './topics.js';

export interface ManualAction {
  /** Who did it (an IAM principal, a username): kept in the audit list. */
  actor: string;
  /** Why, in their words. */
  reason: string;
  /** When, epoch ms, passed in by the caller (the CLI passes its clock). */
  at: number;
}

const ACTOR_MAX = 100;
const REASON_MAX = 200;

/**
 * Reactivates: `reactivatedAt` becomes max(reactivatedAt, at), so every piece of evidence dated at or
 * before `at` stops counting, including manual suppressions and a crossed soft-bounce limit. The
 * evidence itself moves to `discounted` (normalize.ts), so the record still says why the address was
 * suppressed; soft bounces are pruned. Evidence dated after `at` still counts, so the
 * record can stay suppressed: callers must look at `record.status`, not only at the effect.
 */
export function reactivate(
  record: SuppressionRecord,
  action: ManualAction,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): ApplyResult {
  assertPolicy(policy);
  const entry = auditEntry('reactivate', action);
  const before = readFacts(record);
  const next = normalize(
    { ...before, reactivatedAt: maxDefined(before.reactivatedAt, entry.at), audit: unionAudit(before.audit, [entry]) },
    policy,
  );
  const outcome = result(record, next, 'no_change');
  return { ...outcome, effect: outcome.changed ? 'reactivated' : 'no_change' };
}

/**
 * Suppresses with reason `manual`, as evidence keyed `manual:<at>` plus an audit entry. Like any
 * evidence, it is cleared by a reactivation dated at or after `at`; an action dated at or before the
 * latest reactivation is audited but does not suppress.
 */
export function suppressManually(
  record: SuppressionRecord | undefined,
  email: string,
  action: ManualAction,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): ApplyResult {
  assertPolicy(policy);
  const previous = startingRecord(record, email);
  const entry = auditEntry('suppress', action);
  const before = readFacts(previous);
  const key = manualKey(entry.at);
  const evidence = {
    [key]: {
      kind: 'manual' as const,
      occurredAt: entry.at,
      provider: 'manual',
      actor: entry.actor,
      note: entry.reason,
    },
  };
  const next = normalize(
    { ...before, evidence: unionEvidence(before.evidence, evidence), audit: unionAudit(before.audit, [entry]) },
    policy,
  );
  return result(record, next, manualEffect(entry.at, key, previous, next));
}

/**
 * A manual topic change, the operator's `suppressions add|reactivate <email> --topic <t>`: an opt-out
 * (`unsubscribe`) or a restore (`subscribe`) of that one topic, dated `at`, as topic evidence keyed
 * `<kind>:manual#<at>` plus an audit entry carrying the topic. Like any topic change, the latest by
 * time wins, and it never touches `status`, `reasons` or `transactionalStatus`. The topic may be a
 * canonical name: TOPIC_ALIASES applies here as for provider events.
 */
export function changeTopicManually(
  record: SuppressionRecord | undefined,
  email: string,
  topic: string,
  change: 'unsubscribe' | 'subscribe',
  action: ManualAction,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): ApplyResult {
  assertPolicy(policy);
  if (!isTopicName(topic)) throw new TypeError('not a topic name');
  if (change !== 'unsubscribe' && change !== 'subscribe')
    throw new TypeError('a topic change is unsubscribe or subscribe');
  const previous = startingRecord(record, email);
  const name = resolveTopic(topic, policy.topicAliases ?? NO_TOPIC_ALIASES);
  const entry = { ...auditEntry(change === 'unsubscribe' ? 'suppress' : 'reactivate', action), topic: name };
  const before = readFacts(previous);
  const key = evidenceKey(change, 'manual', String(entry.at));
  const evidence = {
    kind: change,
    occurredAt: entry.at,
    provider: 'manual',
    actor: entry.actor,
    note: entry.reason,
    ...(name !== topic ? { scope: topic } : {}),
  };
  const next = normalize(
    {
      ...before,
      topics: unionTopics(before.topics, { [name]: { [key]: evidence } }),
      audit: unionAudit(before.audit, [entry]),
    },
    policy,
  );
  return result(record, next, topicEffect(name, key, previous, next));
}

function manualEffect(at: number, key: string, previous: SuppressionRecord, next: SuppressionRecord): Effect {
  if (previous.reactivatedAt !== undefined && at <= previous.reactivatedAt) return 'ignored_before_reactivation';
  if (previous.status !== 'suppressed' && next.status === 'suppressed') return 'suppressed';
  if (next.reasons.some((r) => !(previous.reasons ?? []).includes(r))) return 'reason_added';
  return Object.hasOwn(next.evidence, key) && !Object.hasOwn(previous.evidence ?? {}, key)
    ? 'evidence_added'
    : 'no_change';
}

function auditEntry(action: AuditEntry['action'], input: ManualAction): AuditEntry {
  if (typeof input.actor !== 'string' || input.actor.trim() === '')
    throw new TypeError('a manual action needs an actor');
  if (typeof input.reason !== 'string') throw new TypeError('a manual action needs a reason');
  if (typeof input.at !== 'number' || !Number.isFinite(input.at)) throw new TypeError('a manual action needs a time');
  return { action, actor: clip(input.actor.trim(), ACTOR_MAX), reason: clip(input.reason, REASON_MAX), at: input.at };
}
