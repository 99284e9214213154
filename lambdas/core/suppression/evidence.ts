/**
 * Evidence entries: reading them back from a stored item, choosing between two versions of one key,
 * and the union of two maps. Shared by the global evidence, the soft bounces and every topic.
 */
import { isRecord } from '../json.js';
import { EVIDENCE_KINDS, type Evidence, type EvidenceKind } from './record.js';

/** The provider's detail strings an evidence entry copies from its event (apply.ts `toEvidence`). */
export const DETAIL_STRING_FIELDS = [
  'bounceType',
  'bounceSubType',
  'status',
  'diagnosticCode',
  'complaintFeedbackType',
  'providerEventType',
] as const;

const EVIDENCE_STRING_FIELDS = [...DETAIL_STRING_FIELDS, 'actor', 'note', 'scope', 'messageId'] as const;

export function readEvidenceMap(
  value: unknown,
  field: string,
  allowed: (kind: EvidenceKind) => boolean,
): Record<string, Evidence> {
  const map = value ?? {};
  if (!isRecord(map)) malformed(field);
  const entries: Array<[string, Evidence]> = [];
  for (const [key, raw] of Object.entries(map)) {
    const entry = readEvidence(raw);
    if (!allowed(entry.kind)) malformed(`${field} holds a ${entry.kind} entry`);
    entries.push([key, entry]);
  }
  return Object.fromEntries(entries);
}

export function readEvidence(value: unknown): Evidence {
  if (!isRecord(value)) malformed('evidence entry');
  const kind = value['kind'];
  const occurredAt = value['occurredAt'];
  const provider = value['provider'];
  if (!(EVIDENCE_KINDS as readonly unknown[]).includes(kind)) malformed('evidence kind');
  if (typeof occurredAt !== 'number' || !Number.isFinite(occurredAt)) malformed('evidence occurredAt');
  if (typeof provider !== 'string') malformed('evidence provider');
  const entry: Evidence = { kind: kind as EvidenceKind, occurredAt, provider };
  for (const field of EVIDENCE_STRING_FIELDS) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') malformed(`evidence ${field}`);
    entry[field] = v;
  }
  const echo = value['echo'];
  if (echo !== undefined && echo !== null) {
    if (typeof echo !== 'boolean') malformed('evidence echo');
    entry.echo = echo;
  }
  return entry;
}

export function malformed(what: string): never {
  throw new TypeError(`stored suppression record is malformed: ${what}`);
}

/**
 * JSON with object keys sorted: a deterministic order between two versions of one entry (the last
 * tie-break of pickEvidence), since key order in a DynamoDB map means nothing. Not how records are
 * compared: sameJson (result.ts) is the one equality, and it builds no strings.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Two versions of the same evidence key (a provider that re-sent an event id with other content, or
 * a merge): keep the later-dated one, then the canonically smaller. A deterministic choice, and the
 * later date is the one that survives every pruning threshold the other survives.
 */
export function pickEvidence(a: Evidence, b: Evidence): Evidence {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt > b.occurredAt ? a : b;
  return compareStrings(canonicalJson(a), canonicalJson(b)) <= 0 ? a : b;
}

export function unionEvidence(a: Record<string, Evidence>, b: Record<string, Evidence>): Record<string, Evidence> {
  // Built with Object.fromEntries / Object.hasOwn: an event id of `__proto__` must stay a plain key.
  const merged = new Map<string, Evidence>(Object.entries(a));
  for (const [key, entry] of Object.entries(b)) {
    const existing = merged.get(key);
    merged.set(key, existing === undefined ? entry : pickEvidence(existing, entry));
  }
  return Object.fromEntries(merged);
}
