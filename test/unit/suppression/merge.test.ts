/**
 * mergeRecords example by example: its guards (policy, address) with their messages, and the one rule
 * the property tests rarely hit: a soft-bounce crossing the merged reactivation cleared must not hide a
 * later crossing that stands.
 */
import { describe, expect, it } from 'vitest';
import {
  emptyRecord,
  mergeRecords,
  type RatchetPolicy,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';
import { EMAIL } from './support.js';

/** A stored record carrying only these facts (readFacts ignores the derived fields). */
const stored = (facts: Record<string, unknown>): SuppressionRecord =>
  ({ ...emptyRecord(EMAIL), ...facts }) as SuppressionRecord;

describe('mergeRecords guards', () => {
  it('checks the policy', () => {
    const bad = { softBounceLimit: 0, softBounceWindowMs: 1 } as RatchetPolicy;
    expect(() => mergeRecords(emptyRecord(EMAIL), emptyRecord(EMAIL), bad)).toThrow(RangeError);
    expect(() => mergeRecords(emptyRecord(EMAIL), emptyRecord(EMAIL), bad)).toThrow(
      /^softBounceLimit must be a whole number between 1 and \d+$/,
    );
  });

  it('refuses records of different addresses, saying so', () => {
    expect(() => mergeRecords(emptyRecord('a@example.com'), emptyRecord('b@example.com'))).toThrow(
      new TypeError('cannot merge suppression records of different addresses'),
    );
  });
});

describe('mergeRecords: sticky soft-bounce limits against the merged reactivation', () => {
  it("drops a crossing dated before the other copy's reactivation, and keeps the later one that stands", () => {
    const a = stored({ softBounceLimitAt: 10 });
    const b = stored({ reactivatedAt: 20, softBounceLimitAt: 30 });
    for (const merged of [mergeRecords(a, b), mergeRecords(b, a)]) {
      expect(merged.softBounceLimitAt).toBe(30);
      expect(merged.reactivatedAt).toBe(20);
      expect(merged.status).toBe('suppressed');
      expect(merged.reasons).toEqual(['soft_bounce_limit']);
      expect(merged.suppressedAt).toBe(30);
    }
  });

  it('drops a crossing dated exactly at the reactivation (at or before clears it)', () => {
    const a = stored({ softBounceLimitAt: 20 });
    const b = stored({ reactivatedAt: 20, softBounceLimitAt: 30 });
    expect(mergeRecords(a, b).softBounceLimitAt).toBe(30);
    expect(mergeRecords(b, a).softBounceLimitAt).toBe(30);
  });

  it('keeps the earlier of two crossings that both stand', () => {
    const merged = mergeRecords(stored({ reactivatedAt: 5, softBounceLimitAt: 30 }), stored({ softBounceLimitAt: 21 }));
    expect(merged.softBounceLimitAt).toBe(21);
  });
});
