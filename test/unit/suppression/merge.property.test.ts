/**
 * mergeRecords is the record's merge rule written down: merging the records built from two halves of
 * an arrival sequence must equal applying the whole sequence.
 *
 * Excluded, as in order.property.test.ts and for the same reason: when the event set contains a
 * soft-bounce run crossing the limit that starts at or before the latest delivery (oracle `exact:
 * false`), one half may have crossed the limit before seeing the delivery that the other half holds.
 * That crossing is sticky, so there we compare everything except the fields it drives, and require
 * soft_bounce_limit whenever the bounces that count at the end cross the limit anyway.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyRecord, mergeRecords, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { propertyRuns } from '../support/property-runs.js';
import {
  CAPPED_POLICY,
  EMAIL,
  ev,
  fold,
  type Op,
  oracle,
  PER_MESSAGE_POLICY,
  PROPERTY_POLICY,
  setAndArrival,
  withoutSticky,
} from './support.js';

const orEmpty = (r: SuppressionRecord | undefined): SuppressionRecord => r ?? emptyRecord(EMAIL);

describe('mergeRecords', () => {
  for (const [name, policy] of [
    ['default cap', PROPERTY_POLICY],
    ['tiny cap', CAPPED_POLICY],
    ['per-message cap', PER_MESSAGE_POLICY],
  ] as const) {
    it(`merging the records of two halves equals applying the whole sequence (${name})`, () => {
      let exact = 0;
      fc.assert(
        fc.property(setAndArrival(12, 30), fc.nat(), ({ set, arrival }, cut) => {
          const at = cut % (arrival.length + 1);
          const whole = orEmpty(fold(arrival, policy));
          const merged = mergeRecords(
            orEmpty(fold(arrival.slice(0, at), policy)),
            orEmpty(fold(arrival.slice(at), policy)),
            policy,
          );
          const expected = oracle(set, policy);
          if (expected.exact) {
            exact++;
            expect(JSON.stringify(merged)).toBe(JSON.stringify(whole));
          } else {
            expect(withoutSticky(merged)).toEqual(withoutSticky(whole));
            const nonSoft = (r: SuppressionRecord) => r.reasons.filter((x) => x !== 'soft_bounce_limit');
            expect(nonSoft(merged)).toEqual(nonSoft(whole));
            if (expected.limitCrossedAtEnd) expect(merged.reasons).toContain('soft_bounce_limit');
          }
        }),
        { numRuns: propertyRuns(3_000) },
      );
      // Measured: 58 % (tiny cap) to 90 % (default cap) of the runs are exact. Two fifths of the runs made is
      // the floor, at any scale: at 5 % of the runs (150, mutation testing) half was within two
      // standard deviations of the tiny cap's mean, and failed Stryker's dry run once.
      expect(exact).toBeGreaterThan(Math.floor((propertyRuns(3_000) * 2) / 5));
    });
  }

  it('is commutative and idempotent', () => {
    fc.assert(
      fc.property(setAndArrival(12, 20), setAndArrival(12, 20), (a, b) => {
        const x = orEmpty(fold(a.arrival, PROPERTY_POLICY));
        // Ids are only unique within one generated set; prefix b's so that one id still means one event.
        const renamed = b.arrival.map((op) =>
          op.type === 'event' ? { ...op, event: { ...op.event, eventId: `b-${op.event.eventId}` } } : op,
        );
        const y = orEmpty(fold(renamed, PROPERTY_POLICY));
        expect(JSON.stringify(mergeRecords(x, y, PROPERTY_POLICY))).toBe(
          JSON.stringify(mergeRecords(y, x, PROPERTY_POLICY)),
        );
        expect(JSON.stringify(mergeRecords(x, x, PROPERTY_POLICY))).toBe(JSON.stringify(x));
        // Without a reactivation on either side, a suppression one side holds survives the merge.
        if (x.status === 'suppressed' && x.reactivatedAt === undefined && y.reactivatedAt === undefined) {
          expect(mergeRecords(x, y, PROPERTY_POLICY).status).toBe('suppressed');
        }
      }),
      { numRuns: propertyRuns(1_000) },
    );
  });

  it('keeps a crossing that stands after the merged reactivation, even when an older one does not', () => {
    const soft = (t: number): Op => ({ type: 'event', event: ev('soft_bounce', t) });
    const a = orEmpty(fold([soft(1), soft(2), soft(3)], PROPERTY_POLICY)); // crossed at 1
    const b = orEmpty(
      fold(
        [
          { type: 'reactivate', actor: 'ops', reason: 'r', at: 5 },
          soft(11),
          soft(12),
          soft(13),
          { type: 'event', event: ev('delivered', 14) },
        ],
        PROPERTY_POLICY,
      ),
    ); // crossed at 11, after its reactivation; the bounces themselves were pruned by the delivery
    expect(b.softBounceLimitAt).toBe(11);
    for (const merged of [mergeRecords(a, b, PROPERTY_POLICY), mergeRecords(b, a, PROPERTY_POLICY)]) {
      expect(merged.status).toBe('suppressed');
      expect(merged.softBounceLimitAt).toBe(11);
    }
  });

  it('refuses to merge records of different addresses', () => {
    expect(() => mergeRecords(emptyRecord('a@example.com'), emptyRecord('b@example.com'))).toThrow(TypeError);
  });
});
