/** What every operation hands back: the new record, and how it compares with the one passed in. */
import { canonicalJson } from './normalize.js';
import type { ApplyResult, Effect, SuppressionRecord } from './record.js';

const RECORD_FIELDS = [
  'email',
  'status',
  'reason',
  'reasons',
  'suppressedAt',
  'firstEventAt',
  'lastEventAt',
  'lastDeliveredAt',
  'reactivatedAt',
  'softBounceLimitAt',
  'evidence',
  'audit',
] as const;

/**
 * Compares only the record's own fields (the stored item also carries the adapter's `version` and
 * `updatedAt`), by content: a DynamoDB map comes back in any key order. A stored record that is not
 * in normal form (an older writer, a changed policy) counts as changed, so the next write heals it.
 */
export function sameRecord(a: SuppressionRecord, b: SuppressionRecord): boolean {
  const pick = (r: SuppressionRecord): Record<string, unknown> =>
    Object.fromEntries(RECORD_FIELDS.map((f) => [f, (r as unknown as Record<string, unknown>)[f]]));
  return canonicalJson(pick(a)) === canonicalJson(pick(b));
}

export function result(input: SuppressionRecord | undefined, record: SuppressionRecord, effect: Effect): ApplyResult {
  return {
    record,
    changed: input === undefined || !sameRecord(input, record),
    effect,
    becameSuppressed: input?.status !== 'suppressed' && record.status === 'suppressed',
  };
}

/** Truncates to `max` code points (never splitting a surrogate pair): stored strings stay small and valid. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  return Array.from(value).slice(0, max).join('');
}
