/**
 * What convergence still means once the consumer skips a `delivered` for an address with no record
 * (write-policy.ts). A skipped delivery leaves no trace, so the record is exactly what applying the
 * *written* events gives, and the ratchet's order independence (test/unit/suppression) holds over those.
 * Which deliveries are skipped depends on arrival: only those that arrive before any other operation on
 * the address. Everything except the delivery facts and what they discount (soft bounces dated at or
 * before the skipped delivery, hence `soft_bounce_limit`) is the same as if nothing had been skipped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skipWithoutRecord } from '../../../lambdas/core/pipeline/write-policy.js';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { propertyRuns } from '../support/property-runs.js';
import { fold, type Op, PROPERTY_POLICY, runOp, setAndArrival } from '../suppression/support.js';

function foldSkipping(ops: readonly Op[]): { record: SuppressionRecord | undefined; written: Op[] } {
  let record: SuppressionRecord | undefined;
  const written: Op[] = [];
  for (const op of ops) {
    if (op.type === 'event' && skipWithoutRecord(record, op.event)) continue;
    written.push(op);
    record = runOp(record, op, PROPERTY_POLICY).record;
  }
  return { record, written };
}

const nonSoft = (r: SuppressionRecord | undefined) => (r?.reasons ?? []).filter((x) => x !== 'soft_bounce_limit');

describe('convergence with skipped deliveries', () => {
  it('the record equals the ratchet over the written events, and only leading deliveries are skipped', () => {
    fc.assert(
      fc.property(setAndArrival(8, 14), ({ arrival }) => {
        const { record, written } = foldSkipping(arrival);
        expect(record).toEqual(fold(written, PROPERTY_POLICY));
        const firstWritten = arrival.findIndex((op) => op.type !== 'event' || op.event.kind !== 'delivered');
        const skipped = firstWritten === -1 ? arrival.length : firstWritten;
        expect(arrival.length - written.length).toBe(skipped);
      }),
      { numRuns: propertyRuns(400) },
    );
  });

  it('complaints, hard bounces, unsubscribes, manual actions and evidence are unaffected by skipping', () => {
    fc.assert(
      fc.property(setAndArrival(8, 14), ({ arrival }) => {
        const skipping = foldSkipping(arrival).record;
        const full = fold(arrival, PROPERTY_POLICY);
        expect(nonSoft(skipping)).toEqual(nonSoft(full));
        expect(skipping?.evidence ?? {}).toEqual(full?.evidence ?? {});
        expect(skipping?.audit ?? []).toEqual(full?.audit ?? []);
        // A record that exists only because of deliveries is never written.
        if (arrival.every((op) => op.type === 'event' && op.event.kind === 'delivered'))
          expect(skipping).toBeUndefined();
      }),
      { numRuns: propertyRuns(400) },
    );
  });
});
