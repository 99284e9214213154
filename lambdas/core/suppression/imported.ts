/**
 * Suppressions brought in from another system (`ratchet suppressions import`): like a manual
 * suppression, each entry is evidence with an actor (`import:<file name>`), but of the kind the source
 * recorded (complaint, hard bounce, unsubscribe, soft bounce or manual) and dated by the source's own
 * date. Keyed by the entry's identity, so importing the same file again changes nothing, and like all
 * evidence it only adds: an import never lifts a suppression, and entries dated at or before a
 * reactivation do not count.
 */
import { evidenceKey, softBounceKey } from './keys.js';
import { maxDefined, minDefined, normalize, readFacts, unionEvidence } from './normalize.js';
import { assertPolicy, DEFAULT_RATCHET_POLICY, type RatchetPolicy } from './policy.js';
import {
  type ApplyResult,
  type Evidence,
  type EvidenceKind,
  type SuppressionRecord,
  startingRecord,
} from './record.js';
import { clip, result } from './result.js';

export const IMPORT_PROVIDER = 'import';

export interface ImportedEntry {
  kind: EvidenceKind;
  /** The entry's own date (epoch ms), or the import time when the source has none. */
  occurredAt: number;
  /** `import:<file name>`. */
  actor: string;
  /** Stable identity of the entry (format, address, kind, source date): the evidence key. */
  entryId: string;
  /** The source's own words (bounce reason, suppression reason), for the human reading the record. */
  note?: string;
  /** The source format, e.g. `sendgrid-bounces`. */
  source: string;
}

export function importEntry(
  record: SuppressionRecord | undefined,
  email: string,
  entry: ImportedEntry,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): ApplyResult {
  assertPolicy(policy);
  const previous = startingRecord(record, email);
  if (!Number.isFinite(entry.occurredAt)) throw new TypeError('an imported entry needs a time');
  const before = readFacts(previous);
  const evidence: Evidence = {
    kind: entry.kind,
    occurredAt: entry.occurredAt,
    provider: IMPORT_PROVIDER,
    actor: clip(entry.actor, 100),
    providerEventType: clip(entry.source, 64),
    ...(entry.note ? { note: clip(entry.note, 200) } : {}),
  };
  const after = {
    ...before,
    firstEventAt: minDefined(before.firstEventAt, entry.occurredAt),
    lastEventAt: maxDefined(before.lastEventAt, entry.occurredAt),
  };
  let key: string;
  if (entry.kind === 'soft_bounce') {
    key = softBounceKey(IMPORT_PROVIDER, entry.entryId);
    after.softBounces = unionEvidence(before.softBounces, { [key]: evidence });
  } else {
    key = evidenceKey(entry.kind, IMPORT_PROVIDER, entry.entryId);
    after.evidence = unionEvidence(before.evidence, { [key]: evidence });
  }
  const next = normalize(after, policy);
  const added = !Object.hasOwn(
    entry.kind === 'soft_bounce' ? (previous.softBounces ?? {}) : (previous.evidence ?? {}),
    key,
  );
  if (previous.reactivatedAt !== undefined && entry.occurredAt <= previous.reactivatedAt)
    return result(record, next, 'ignored_before_reactivation');
  if (previous.status !== 'suppressed' && next.status === 'suppressed') return result(record, next, 'suppressed');
  if (next.reasons.some((r) => !(previous.reasons ?? []).includes(r))) return result(record, next, 'reason_added');
  return result(record, next, added ? 'evidence_added' : 'no_change');
}
