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
import { mergeFacts } from './merge.js';
import { type Facts, normalize, readFacts } from './normalize.js';
import { assertPolicy, DEFAULT_RATCHET_POLICY, type RatchetPolicy } from './policy.js';
import { type ApplyResult, type Effect, type Evidence, type SuppressionRecord, startingRecord } from './record.js';
import { result } from './result.js';
import { isNewerSuppressionSchema, suppressionSchemaOf, upgradeSuppressionRecord } from './schema.js';

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
  // Everything but the export's reactivation first: what the table would count after the import.
  const held = mergeFacts(x, y, x.reactivatedAt, y.audit);
  const at = y.reactivatedAt;
  let facts = held;
  if (at !== undefined && (x.reactivatedAt === undefined || at > x.reactivatedAt)) {
    if (liftsNothing(x, normalize(held, policy), at)) facts = mergeFacts(x, y, at, y.audit);
    else {
      skipped.push({ what: 'reactivation', at });
      // Its audit entries go with it: the table's history must not say it was reactivated.
      const since = x.reactivatedAt ?? Number.NEGATIVE_INFINITY;
      const audit = y.audit.filter((e) => !(e.action === 'reactivate' && e.topic === undefined && e.at > since));
      facts = mergeFacts(x, y, x.reactivatedAt, audit);
    }
  }
  const next = normalize(facts, policy);
  const outcome = result(target, next, 'no_change');
  return { ...outcome, effect: outcome.changed ? effectOf(previous, next) : 'no_change', skipped };
}

/**
 * A reactivation at `at` lifts nothing the table holds: of what the merged record counts without it,
 * every entry the table brought (by key, in the version the merge keeps) and a crossed soft-bounce
 * limit are dated after `at`. The export's own entries it discounts were discounted where they came
 * from; a delivery the export brings prunes soft bounces by the ratchet's own rule, not by this one.
 */
function liftsNothing(table: Facts, counted: SuppressionRecord, at: number): boolean {
  const after = (map: Record<string, Evidence>, own: Record<string, Evidence>) =>
    Object.entries(map).every(([key, entry]) => !Object.hasOwn(own, key) || entry.occurredAt > at);
  return (
    after(counted.evidence, table.evidence) &&
    after(counted.softBounces, table.softBounces) &&
    (counted.softBounceLimitAt === undefined || counted.softBounceLimitAt > at)
  );
}

function effectOf(previous: SuppressionRecord, next: SuppressionRecord): Effect {
  if (previous.status !== 'suppressed' && next.status === 'suppressed') return 'suppressed';
  if (next.reasons.some((r) => !(previous.reasons ?? []).includes(r))) return 'reason_added';
  return 'evidence_added';
}
