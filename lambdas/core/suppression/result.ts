/** What every operation hands back: the new record, and how it compares with the one passed in. */
import type { ApplyResult, Effect, SuppressionRecord } from './record.js';

const RECORD_FIELDS = [
  'email',
  'status',
  'transactionalStatus',
  'reason',
  'reasons',
  'suppressedAt',
  'firstEventAt',
  'lastEventAt',
  'lastDeliveredAt',
  'reactivatedAt',
  'softBounceLimitAt',
  'evidence',
  'discounted',
  'softBounces',
  'topics',
  'audit',
] as const;

/**
 * Compares only the record's own fields (the stored item also carries the adapter's `version` and
 * `updatedAt`), by content: a DynamoDB map comes back in any key order. A stored record that is not
 * in normal form (an older writer, a changed policy) counts as changed, so the next write heals it.
 */
export function sameRecord(a: SuppressionRecord, b: SuppressionRecord): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  return RECORD_FIELDS.every((field) => sameJson(x[field], y[field]));
}

/** Deep equality of JSON values, ignoring object key order; an absent key equals an `undefined` one. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => sameJson(v, other[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  // Own properties only: an event id of `__proto__` is an ordinary key here.
  const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
  for (const key of keys) if (!sameJson(own(x, key), own(y, key))) return false;
  return true;
}

export function result(input: SuppressionRecord | undefined, record: SuppressionRecord, effect: Effect): ApplyResult {
  return {
    record,
    changed: input === undefined || !sameRecord(input, record),
    effect,
    becameSuppressed: input?.status !== 'suppressed' && record.status === 'suppressed',
  };
}

/**
 * Truncates to `max` UTF-16 units (at most 3 UTF-8 bytes each, which is what the item-size budget
 * counts), never ending on half a surrogate pair: stored strings stay small and valid.
 */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const last = value.charCodeAt(max - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
