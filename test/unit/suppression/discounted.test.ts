/**
 * A reactivation keeps the evidence it discounts: it moves to `discounted`, never counts again, and
 * shares each kind's cap with `evidence`, so the record still says why the address was suppressed
 * and the result does not depend on the order events and the reactivation arrive in.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  reactivate,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';
import { sameRecord } from '../../../lambdas/core/suppression/result.js';
import { CAPPED_POLICY, DAY, EMAIL, ev, fold, type Op, T0 } from './support.js';

const at = (days: number) => T0 + days * DAY;
const reactivateOp = (days: number): Op => ({ type: 'reactivate', actor: 'ops', reason: 'confirmed', at: at(days) });

describe('reactivation keeps what it discounts', () => {
  it('moves the evidence to discounted, where it does not count; later evidence still suppresses', () => {
    let record = applyEvent(undefined, ev('complaint', at(1), { id: 'c1' })).record;
    record = applyEvent(record, ev('hard_bounce', at(2), { id: 'h1' })).record;
    const reactivated = reactivate(record, { actor: 'ops', reason: 'confirmed', at: at(3) });
    expect(reactivated.effect).toBe('reactivated');
    expect(reactivated.record).toMatchObject({
      status: 'active',
      transactionalStatus: 'active',
      reasons: [],
      evidence: {},
      reactivatedAt: at(3),
    });
    expect(Object.values(reactivated.record.discounted ?? {}).map((e) => [e.kind, e.occurredAt])).toEqual([
      ['complaint', at(1)],
      ['hard_bounce', at(2)],
    ]);
    const again = applyEvent(reactivated.record, ev('complaint', at(4), { id: 'c2' })).record;
    expect(again).toMatchObject({ status: 'suppressed', reasons: ['complaint'], suppressedAt: at(4) });
    expect(Object.keys(again.evidence)).toHaveLength(1);
    expect(Object.keys(again.discounted ?? {})).toHaveLength(2);
  });

  it('a stored discounted map that is not a map, or holds a soft bounce, is refused by name', () => {
    const record = reactivate(applyEvent(undefined, ev('complaint', at(1), { id: 'c1' })).record, {
      actor: 'ops',
      reason: 'confirmed',
      at: at(2),
    }).record;
    const soft = { kind: 'soft_bounce', occurredAt: at(1), provider: 'ses', eventId: 's1' };
    for (const [discounted, why] of [
      ['nope', 'discounted'],
      [{ s1: soft }, 'discounted holds a soft_bounce entry'],
    ] as const) {
      expect(() =>
        applyEvent({ ...record, discounted } as unknown as SuppressionRecord, ev('delivered', at(3))),
      ).toThrow(new TypeError(`stored suppression record is malformed: ${why}`));
    }
  });

  it('keeps discounted entries oldest first whatever their kinds, like evidence', () => {
    let record = applyEvent(undefined, ev('hard_bounce', at(1), { id: 'h1' })).record;
    record = applyEvent(record, ev('complaint', at(2), { id: 'c1' })).record;
    record = applyEvent(record, ev('hard_bounce', at(3), { id: 'h2' })).record;
    const reactivated = reactivate(record, { actor: 'ops', reason: 'confirmed', at: at(4) }).record;
    expect(Object.values(reactivated.discounted ?? {}).map((e) => [e.kind, e.occurredAt])).toEqual([
      ['hard_bounce', at(1)],
      ['complaint', at(2)],
      ['hard_bounce', at(3)],
    ]);
  });

  it('an event dated before the reactivation that arrives after it lands in discounted too: the same record either way', () => {
    const before = fold(
      [{ type: 'event', event: ev('complaint', at(1), { id: 'late' }) }, reactivateOp(3)],
      DEFAULT_RATCHET_POLICY,
    )!;
    const after = fold(
      [reactivateOp(3), { type: 'event', event: ev('complaint', at(1), { id: 'late' }) }],
      DEFAULT_RATCHET_POLICY,
    )!;
    expect(sameRecord(before, after)).toBe(true);
    expect(after.status).toBe('active');
    expect(Object.keys(after.discounted ?? {})).toEqual(['complaint:ses#late']);
  });

  it('shares the per-kind cap with evidence: newer evidence pushes the oldest discounted entries out', () => {
    const policy = CAPPED_POLICY; // 4 per kind
    const ops: Op[] = [
      ...[1, 2, 3].map((d): Op => ({ type: 'event', event: ev('complaint', at(d), { id: `old${d}` }) })),
      reactivateOp(5),
      ...[6, 7].map((d): Op => ({ type: 'event', event: ev('complaint', at(d), { id: `new${d}` }) })),
    ];
    const record = fold(ops, policy)!;
    expect(Object.keys(record.evidence).sort()).toEqual(['complaint:ses#new6', 'complaint:ses#new7']);
    expect(Object.keys(record.discounted ?? {}).sort()).toEqual(['complaint:ses#old2', 'complaint:ses#old3']);
  });

  it('a record never reactivated has no discounted field', () => {
    const record: SuppressionRecord = applyEvent(undefined, ev('complaint', at(1))).record;
    expect(record).not.toHaveProperty('discounted');
    expect(record.email).toBe(EMAIL);
  });
});
