/**
 * A whole record from Ratchet's own export (`suppressions export`, format 2) brought back into a table
 * (`suppressions import --format jsonl|csv`). The record's stored facts are merged into the address's
 * record by the rules of `mergeRecords`: evidence, discounted evidence, soft bounces and topic entries
 * by their keys, audit entries by content, history times by min or max. So an export imported into an
 * empty table gives the exported record, and imported again (into either table) changes nothing:
 * every key is already there.
 *
 * One rule is the import's own: an import never lifts a suppression. The export's reactivation
 * (`reactivatedAt`) is carried only when it discounts nothing the table holds in effect (evidence, soft
 * bounces, a crossed soft-bounce limit). Otherwise it is skipped, with the global reactivate audit
 * entries it stands for, and reported, and the exported evidence it had discounted counts here like
 * any other evidence: the table stays suppressed until someone reactivates the address in it.
 */
import { normalizeRecipient } from '../event.js';
import { isRecord } from '../json.js';
import { malformed } from './evidence.js';
import { type Facts, maxDefined, minDefined, normalize, readFacts, unionAudit, unionEvidence } from './normalize.js';
import { assertPolicy, DEFAULT_RATCHET_POLICY, type RatchetPolicy } from './policy.js';
import { type ApplyResult, type Effect, type SuppressionRecord, startingRecord } from './record.js';
import { result } from './result.js';
import { isNewerSuppressionSchema, suppressionSchemaOf, upgradeSuppressionRecord } from './schema.js';
import { unionTopics } from './topics.js';

/** Something in an exported record the import did not apply, and when it happened (epoch ms). */
export interface RecordImportSkip {
  what: 'reactivation';
  at: number;
}

export interface RecordImportResult extends ApplyResult {
  skipped: RecordImportSkip[];
}

/**
 * An exported record (a JSON line, or a CSV row already turned back into the record's fields) in
 * today's shape, its address normalized. Throws a TypeError naming what is wrong: a malformed record
 * is refused whole, never half imported, and a record written by a newer schema is refused too.
 */
export function readExportedRecord(item: Record<string, unknown>): SuppressionRecord {
  if (!isRecord(item)) malformed('record');
  if (isNewerSuppressionSchema(item))
    throw new TypeError(`schemaVersion ${suppressionSchemaOf(item)} is newer than this version of Ratchet reads`);
  const upgraded = upgradeSuppressionRecord(item);
  let email: string;
  try {
    email = normalizeRecipient(upgraded['email']);
  } catch {
    throw new TypeError('not an email address');
  }
  const record = { ...upgraded, email } as unknown as SuppressionRecord;
  readFacts(record);
  return record;
}

export function importRecord(
  target: SuppressionRecord | undefined,
  exported: SuppressionRecord,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): RecordImportResult {
  assertPolicy(policy);
  const previous = startingRecord(target, exported.email);
  const x = readFacts(previous);
  const y = readFacts(exported);
  const skipped: RecordImportSkip[] = [];
  let reactivatedAt = x.reactivatedAt;
  let audit = y.audit;
  if (y.reactivatedAt !== undefined && (x.reactivatedAt === undefined || y.reactivatedAt > x.reactivatedAt)) {
    if (liftsNothing(x, y.reactivatedAt, policy)) reactivatedAt = y.reactivatedAt;
    else {
      skipped.push({ what: 'reactivation', at: y.reactivatedAt });
      const since = x.reactivatedAt ?? Number.NEGATIVE_INFINITY;
      audit = audit.filter((e) => !(e.action === 'reactivate' && e.topic === undefined && e.at > since));
    }
  }
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
  // As mergeRecords: only the crossings the reactivation in effect leaves standing.
  const standing = (at: number | undefined) =>
    at !== undefined && (reactivatedAt === undefined || at > reactivatedAt) ? at : undefined;
  set('softBounceLimitAt', minDefined(standing(x.softBounceLimitAt), standing(y.softBounceLimitAt)));
  const next = normalize(facts, policy);
  const outcome = result(target, next, 'no_change');
  return { ...outcome, effect: outcome.changed ? effectOf(previous, next) : 'no_change', skipped };
}

/** A reactivation at `at` would leave everything the record counts counting: the same evidence, soft bounces and limit. */
function liftsNothing(facts: Facts, at: number, policy: RatchetPolicy): boolean {
  const now = normalize(facts, policy);
  const then = normalize({ ...facts, reactivatedAt: at }, policy);
  const sameKeys = (a: object, b: object) =>
    Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => Object.hasOwn(b, k));
  return (
    sameKeys(now.evidence, then.evidence) &&
    sameKeys(now.softBounces, then.softBounces) &&
    now.softBounceLimitAt === then.softBounceLimitAt
  );
}

function effectOf(previous: SuppressionRecord, next: SuppressionRecord): Effect {
  if (previous.status !== 'suppressed' && next.status === 'suppressed') return 'suppressed';
  if (next.reasons.some((r) => !(previous.reasons ?? []).includes(r))) return 'reason_added';
  return 'evidence_added';
}
