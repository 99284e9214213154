/**
 * Merging two records for the same address: every stored fact by its own rule (max, min, union), then
 * normalize. Used to reconcile copies (a restored backup, a second region) and, in the tests, as the
 * specification the incremental operations must agree with.
 */
import { type Facts, maxDefined, minDefined, normalize, readFacts, unionAudit, unionEvidence } from './normalize.js';
import { assertPolicy, DEFAULT_RATCHET_POLICY, type RatchetPolicy } from './policy.js';
import type { SuppressionRecord } from './record.js';
import { unionTopics } from './topics.js';

export function mergeRecords(
  a: SuppressionRecord,
  b: SuppressionRecord,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): SuppressionRecord {
  assertPolicy(policy);
  if (a.email !== b.email) throw new TypeError('cannot merge suppression records of different addresses');
  const x = readFacts(a);
  const y = readFacts(b);
  return normalize(mergeFacts(x, y, maxDefined(x.reactivatedAt, y.reactivatedAt), y.audit), policy);
}

/**
 * Both records' facts, each by its own rule, with the reactivation in effect and the second record's
 * audit entries chosen by the caller (an import may leave out a reactivation it will not carry).
 */
export function mergeFacts(x: Facts, y: Facts, reactivatedAt: number | undefined, audit: Facts['audit']): Facts {
  const facts: Facts = {
    email: x.email,
    evidence: unionEvidence(x.evidence, y.evidence),
    softBounces: unionEvidence(x.softBounces, y.softBounces),
    topics: unionTopics(x.topics, y.topics),
    audit: unionAudit(x.audit, audit),
  };
  const set = (
    field: 'firstEventAt' | 'lastEventAt' | 'lastDeliveredAt' | 'reactivatedAt' | 'softBounceLimitAt',
    value: number | undefined,
  ): void => {
    if (value !== undefined) facts[field] = value;
  };
  set('firstEventAt', minDefined(x.firstEventAt, y.firstEventAt));
  set('lastEventAt', maxDefined(x.lastEventAt, y.lastEventAt));
  set('lastDeliveredAt', maxDefined(x.lastDeliveredAt, y.lastDeliveredAt));
  set('reactivatedAt', reactivatedAt);
  // Min over the crossings that survive the reactivation in effect. Dropping the stale ones first
  // matters: min-then-drop would let a crossing the reactivation cleared hide a later one that stands.
  const standing = (at: number | undefined): number | undefined =>
    at !== undefined && (reactivatedAt === undefined || at > reactivatedAt) ? at : undefined;
  set('softBounceLimitAt', minDefined(standing(x.softBounceLimitAt), standing(y.softBounceLimitAt)));
  return facts;
}
