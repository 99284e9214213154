/**
 * The ratchet as a table: prior state x event kind x dating → status, reasons, effect. Then the rules
 * one by one: precedence, every reason kept, the soft-bounce budget's edges, reactivation, manual
 * suppression. Times are days from T0 with the default policy (3 soft bounces within 30 days).
 */
import { describe, expect, it } from 'vitest';
import type { ActionableKind } from '../../../lambdas/core/event.js';
import {
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  type Effect,
  reactivate,
  type SuppressionReason,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { DAY, EMAIL, ev, fold, type Op, T0 } from './support.js';

const P = DEFAULT_RATCHET_POLICY;
const at = (days: number): number => T0 + days * DAY;
const event = (kind: ActionableKind, days: number, id?: string): Op => ({
  type: 'event',
  event: ev(kind, at(days), id === undefined ? {} : { id }),
});
const reactivateOp = (days: number): Op => ({
  type: 'reactivate',
  actor: 'ops',
  reason: 'confirmed with the recipient',
  at: at(days),
});
const suppressOp = (days: number): Op => ({ type: 'suppress', actor: 'ops', reason: 'asked by phone', at: at(days) });
const build = (...ops: Op[]): SuppressionRecord | undefined => fold(ops, P);

/** Prior states, all built from events dated between day 1 and day 10. */
const PRIORS: Record<string, () => SuppressionRecord | undefined> = {
  none: () => undefined,
  delivered: () => build(event('delivered', 5)),
  complaint: () => build(event('complaint', 5)),
  soft_limit: () => build(event('soft_bounce', 1), event('soft_bounce', 2), event('soft_bounce', 3)),
  manual: () => build(suppressOp(5)),
  reactivated: () => build(event('complaint', 5), reactivateOp(10)),
};

type Row = [prior: keyof typeof PRIORS, kind: ActionableKind, reasons: SuppressionReason[], effect: Effect];

// An event dated day 20: after everything in every prior state.
const LATER: Row[] = [
  ['none', 'delivered', [], 'delivery_recorded'],
  ['none', 'soft_bounce', [], 'soft_bounce_counted'],
  ['none', 'hard_bounce', ['hard_bounce'], 'suppressed'],
  ['none', 'complaint', ['complaint'], 'suppressed'],
  ['none', 'unsubscribe', ['unsubscribe'], 'suppressed'],
  ['delivered', 'delivered', [], 'delivery_recorded'],
  ['delivered', 'soft_bounce', [], 'soft_bounce_counted'],
  ['delivered', 'hard_bounce', ['hard_bounce'], 'suppressed'],
  ['delivered', 'complaint', ['complaint'], 'suppressed'],
  ['delivered', 'unsubscribe', ['unsubscribe'], 'suppressed'],
  ['complaint', 'delivered', ['complaint'], 'delivery_recorded'],
  ['complaint', 'soft_bounce', ['complaint'], 'soft_bounce_counted'],
  ['complaint', 'hard_bounce', ['complaint', 'hard_bounce'], 'reason_added'],
  ['complaint', 'complaint', ['complaint'], 'evidence_added'],
  ['complaint', 'unsubscribe', ['complaint', 'unsubscribe'], 'reason_added'],
  // A delivery dated after the bounces that crossed the limit does not undo the crossing.
  ['soft_limit', 'delivered', ['soft_bounce_limit'], 'delivery_recorded'],
  ['soft_limit', 'soft_bounce', ['soft_bounce_limit'], 'soft_bounce_counted'],
  ['soft_limit', 'hard_bounce', ['hard_bounce', 'soft_bounce_limit'], 'reason_added'],
  ['soft_limit', 'complaint', ['complaint', 'soft_bounce_limit'], 'reason_added'],
  ['soft_limit', 'unsubscribe', ['unsubscribe', 'soft_bounce_limit'], 'reason_added'],
  ['manual', 'delivered', ['manual'], 'delivery_recorded'],
  ['manual', 'soft_bounce', ['manual'], 'soft_bounce_counted'],
  ['manual', 'hard_bounce', ['hard_bounce', 'manual'], 'reason_added'],
  ['manual', 'complaint', ['complaint', 'manual'], 'reason_added'],
  ['manual', 'unsubscribe', ['unsubscribe', 'manual'], 'reason_added'],
  ['reactivated', 'delivered', [], 'delivery_recorded'],
  ['reactivated', 'soft_bounce', [], 'soft_bounce_counted'],
  ['reactivated', 'hard_bounce', ['hard_bounce'], 'suppressed'],
  ['reactivated', 'complaint', ['complaint'], 'suppressed'],
  ['reactivated', 'unsubscribe', ['unsubscribe'], 'suppressed'],
];

// An event dated day 0.5: before everything in every prior state (a late arrival).
const EARLIER: Row[] = [
  ['none', 'delivered', [], 'delivery_recorded'],
  ['none', 'soft_bounce', [], 'soft_bounce_counted'],
  ['none', 'complaint', ['complaint'], 'suppressed'],
  // Already delivered to on day 5: a soft bounce from before that no longer says anything.
  ['delivered', 'delivered', [], 'no_change'],
  ['delivered', 'soft_bounce', [], 'superseded_by_delivery'],
  ['delivered', 'hard_bounce', ['hard_bounce'], 'suppressed'],
  ['delivered', 'complaint', ['complaint'], 'suppressed'],
  ['delivered', 'unsubscribe', ['unsubscribe'], 'suppressed'],
  ['complaint', 'delivered', ['complaint'], 'delivery_recorded'],
  ['complaint', 'hard_bounce', ['complaint', 'hard_bounce'], 'reason_added'],
  ['complaint', 'unsubscribe', ['complaint', 'unsubscribe'], 'reason_added'],
  ['soft_limit', 'delivered', ['soft_bounce_limit'], 'delivery_recorded'],
  ['soft_limit', 'soft_bounce', ['soft_bounce_limit'], 'soft_bounce_counted'],
  ['soft_limit', 'complaint', ['complaint', 'soft_bounce_limit'], 'reason_added'],
  ['manual', 'delivered', ['manual'], 'delivery_recorded'],
  ['manual', 'hard_bounce', ['hard_bounce', 'manual'], 'reason_added'],
  // Everything dated before the reactivation (day 10) is ignored, whatever its kind.
  ['reactivated', 'delivered', [], 'ignored_before_reactivation'],
  ['reactivated', 'soft_bounce', [], 'ignored_before_reactivation'],
  ['reactivated', 'hard_bounce', [], 'ignored_before_reactivation'],
  ['reactivated', 'complaint', [], 'ignored_before_reactivation'],
  ['reactivated', 'unsubscribe', [], 'ignored_before_reactivation'],
];

describe('state machine', () => {
  for (const [dating, days, rows] of [
    ['later', 20, LATER],
    ['earlier', 0.5, EARLIER],
  ] as const) {
    it.each(rows)(`%s + %s (${dating}) → %j, %s`, (prior, kind, reasons, effect) => {
      const before = PRIORS[prior]!();
      const result = applyEvent(before, ev(kind, at(days)), P);
      expect(result.record.reasons).toEqual(reasons);
      expect(result.record.status).toBe(reasons.length > 0 ? 'suppressed' : 'active');
      expect(result.record.reason).toBe(reasons[0]);
      expect(result.effect).toBe(effect);
      expect(result.becameSuppressed).toBe(before?.status !== 'suppressed' && reasons.length > 0);
      // Nothing automatic ever goes from suppressed to active.
      if (before?.status === 'suppressed') expect(result.record.status).toBe('suppressed');
    });
  }
});

describe('reasons', () => {
  it('uses precedence complaint > hard_bounce > unsubscribe > soft_bounce_limit > manual, in any arrival order', () => {
    const ops = [
      suppressOp(1),
      event('soft_bounce', 2),
      event('soft_bounce', 3),
      event('soft_bounce', 4),
      event('unsubscribe', 5),
      event('hard_bounce', 6),
      event('complaint', 7),
    ];
    for (const order of [ops, [...ops].reverse()]) {
      const record = build(...order)!;
      expect(record.reasons).toEqual(['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce_limit', 'manual']);
      expect(record.reason).toBe('complaint');
      // The earliest suppressing evidence, not the first to arrive.
      expect(record.suppressedAt).toBe(at(1));
    }
  });

  it('picks the highest reason present, whatever arrived first', () => {
    const cases: Array<[Op[], SuppressionReason]> = [
      [[event('unsubscribe', 1), event('hard_bounce', 2)], 'hard_bounce'],
      [[event('hard_bounce', 1), event('unsubscribe', 2)], 'hard_bounce'],
      [[suppressOp(1), event('unsubscribe', 2)], 'unsubscribe'],
      [[event('soft_bounce', 1), event('soft_bounce', 2), event('soft_bounce', 3), suppressOp(0)], 'soft_bounce_limit'],
    ];
    for (const [ops, reason] of cases) expect(build(...ops)!.reason).toBe(reason);
  });

  it('keeps every event as evidence, with its small detail', () => {
    const complaint = ev('complaint', at(1), {
      id: 'c1',
      provider: 'sendgrid',
      detail: { complaintFeedbackType: 'abuse', providerEventType: 'spamreport' },
    });
    const bounce = ev('hard_bounce', at(2), {
      id: 'b1',
      detail: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        status: '5.1.1',
        diagnosticCode: 'x'.repeat(1000),
        echo: false,
      },
    });
    const emoji = ev('unsubscribe', at(3), { id: 'u1', detail: { bounceType: `${'a'.repeat(47)}😀` } });
    const record = applyEvent(applyEvent(applyEvent(undefined, complaint).record, bounce).record, emoji).record;
    expect(record.evidence).toEqual({
      'complaint:sendgrid#c1': {
        kind: 'complaint',
        occurredAt: at(1),
        provider: 'sendgrid',
        complaintFeedbackType: 'abuse',
        providerEventType: 'spamreport',
      },
      'hard_bounce:ses#b1': {
        kind: 'hard_bounce',
        occurredAt: at(2),
        provider: 'ses',
        bounceType: 'Permanent',
        bounceSubType: 'General',
        status: '5.1.1',
        diagnosticCode: 'x'.repeat(160),
        echo: false,
      },
      // Clipped to 48 UTF-16 units, without splitting the emoji's surrogate pair.
      'unsubscribe:ses#u1': { kind: 'unsubscribe', occurredAt: at(3), provider: 'ses', bounceType: 'a'.repeat(47) },
    });
  });
});

describe('soft-bounce budget', () => {
  const soft = (days: number, id?: string) => event('soft_bounce', days, id);
  const cases: Array<[string, Op[], boolean]> = [
    ['exactly the limit, spanning exactly the window', [soft(0), soft(15), soft(30)], true],
    ['one below the limit', [soft(0), soft(1)], false],
    ['the limit, spread wider than the window', [soft(0), soft(15), soft(30.001)], false],
    ['a run inside a longer spread', [soft(0), soft(40), soft(41), soft(80), soft(42)], true],
    [
      'a delivery older than the bounces does not reset them',
      [soft(1), soft(2), event('delivered', 0.5), soft(3)],
      true,
    ],
    ['a newer delivery resets the count', [soft(1), soft(2), event('delivered', 2.5), soft(3), soft(4)], false],
    [
      'a bounce at the same time as the delivery does not count',
      [soft(1), soft(2), event('delivered', 3), soft(3)],
      false,
    ],
    ['a replayed soft bounce is counted once', [soft(1, 's1'), soft(1, 's1'), soft(1, 's1'), soft(2, 's2')], false],
    [
      'the same id from another provider is another bounce',
      [soft(1, 's1'), { type: 'event', event: ev('soft_bounce', at(1), { id: 's1', provider: 'sendgrid' }) }, soft(2)],
      true,
    ],
    ['bounces at/before a reactivation do not count', [soft(1), soft(2), reactivateOp(2), soft(3), soft(4)], false],
  ];
  it.each(cases)('%s', (_name, ops, suppressed) => {
    const record = build(...ops)!;
    expect(record.reasons.includes('soft_bounce_limit')).toBe(suppressed);
    expect(record.status).toBe(suppressed ? 'suppressed' : 'active');
  });

  it('a crossed limit is sticky: a later-dated delivery arriving afterwards does not undo it', () => {
    const crossedFirst = build(soft(1), soft(2), soft(3), event('delivered', 4))!;
    expect(crossedFirst.status).toBe('suppressed');
    expect(crossedFirst.softBounceLimitAt).toBe(at(1));
    // The documented exception to order independence: delivery first, and the bounces never count.
    const deliveredFirst = build(event('delivered', 4), soft(1), soft(2), soft(3))!;
    expect(deliveredFirst.status).toBe('active');
  });

  it('a newer delivery resets the count for later bounces but not a crossed limit', () => {
    const record = build(soft(1), soft(2), soft(3), event('delivered', 4), soft(5))!;
    expect(record.reasons).toEqual(['soft_bounce_limit']);
    expect(Object.keys(record.softBounces)).toHaveLength(1);
  });

  it('reaching the soft-bounce cap since the latest delivery counts as crossing, whatever the spread', () => {
    // Monthly bounces never fall 3 within 30 days; 40 of them without a delivery is a dead mailbox.
    const ops = Array.from({ length: 40 }, (_, i) => soft(i * 31));
    const record = build(...ops)!;
    expect(record.reasons).toEqual(['soft_bounce_limit']);
    expect(Object.keys(record.softBounces)).toHaveLength(20);
    expect(build(...ops.slice(0, 19))!.status).toBe('active');
  });
});

describe('late events', () => {
  it('a delivery arriving after a complaint leaves the address suppressed, whatever its date', () => {
    for (const days of [0, 5, 6, 100]) {
      const result = applyEvent(build(event('complaint', 5)), ev('delivered', at(days)));
      expect(result.record.status).toBe('suppressed');
      expect(result.record.reason).toBe('complaint');
    }
  });

  it('a complaint dated before an earlier-arrived delivery still suppresses', () => {
    expect(build(event('delivered', 10), event('complaint', 1))!.reason).toBe('complaint');
  });
});

describe('manual reactivation', () => {
  const suppressed = () =>
    build(
      event('complaint', 1),
      event('soft_bounce', 2),
      event('soft_bounce', 3),
      event('soft_bounce', 4),
      suppressOp(5),
    )!;

  it('makes the address active, prunes what it covers and records who and why', () => {
    const result = reactivate(suppressed(), { actor: 'alice', reason: 'ticket 42', at: at(10) });
    expect(result.record.status).toBe('active');
    expect(result.record.reason).toBeUndefined();
    expect(result.record.reasons).toEqual([]);
    expect(result.record.evidence).toEqual({});
    expect(result.record.softBounces).toEqual({});
    expect(result.record.softBounceLimitAt).toBeUndefined();
    expect(result.record.suppressedAt).toBeUndefined();
    expect(result.record.reactivatedAt).toBe(at(10));
    expect(result.record.audit).toEqual([
      { action: 'suppress', actor: 'ops', reason: 'asked by phone', at: at(5) },
      { action: 'reactivate', actor: 'alice', reason: 'ticket 42', at: at(10) },
    ]);
    expect(result).toMatchObject({ changed: true, effect: 'reactivated', becameSuppressed: false });
  });

  it('events dated at or before it no longer count, events after it do', () => {
    const reactivated = reactivate(suppressed(), { actor: 'alice', reason: 'ticket 42', at: at(10) }).record;
    for (const kind of ['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce'] as const) {
      const late = applyEvent(reactivated, ev(kind, at(10)));
      expect(late.effect).toBe('ignored_before_reactivation');
      expect(late.record.status).toBe('active');
    }
    expect(applyEvent(reactivated, ev('complaint', at(10) + 1)).record.reason).toBe('complaint');
    const bounces = fold(
      [event('soft_bounce', 11), event('soft_bounce', 12), event('soft_bounce', 13)],
      P,
      reactivated,
    )!;
    expect(bounces.reason).toBe('soft_bounce_limit');
  });

  it('keeps the address suppressed when evidence dated after it exists, and says so in the record', () => {
    const result = reactivate(build(event('complaint', 20))!, { actor: 'alice', reason: 'oops', at: at(10) });
    expect(result.record.status).toBe('suppressed');
    expect(result.effect).toBe('reactivated');
  });

  it('is idempotent, and an older reactivation arriving later does not lower reactivatedAt', () => {
    const once = reactivate(suppressed(), { actor: 'alice', reason: 'ticket 42', at: at(10) });
    const twice = reactivate(once.record, { actor: 'alice', reason: 'ticket 42', at: at(10) });
    expect(twice).toMatchObject({ changed: false, effect: 'no_change' });
    const older = reactivate(once.record, { actor: 'bob', reason: 'old ticket', at: at(3) });
    expect(older.record.reactivatedAt).toBe(at(10));
    expect(older.record.audit.map((a) => a.actor)).toEqual(['bob', 'ops', 'alice']);
  });

  it('needs an actor and a finite time', () => {
    expect(() => reactivate(suppressed(), { actor: ' ', reason: 'x', at: at(10) })).toThrow(TypeError);
    expect(() => reactivate(suppressed(), { actor: 'a', reason: 'x', at: Number.NaN })).toThrow(TypeError);
  });
});

describe('manual suppression', () => {
  it('suppresses with reason manual, audited, with evidence keyed manual:<at>', () => {
    const result = suppressManually(undefined, '  Someone@Example.com ', {
      actor: 'ops',
      reason: 'asked by phone',
      at: at(5),
    });
    expect(result.record).toEqual({
      email: EMAIL,
      status: 'suppressed',
      transactionalStatus: 'suppressed',
      reason: 'manual',
      reasons: ['manual'],
      suppressedAt: at(5),
      evidence: {
        [`manual:${at(5)}`]: {
          kind: 'manual',
          occurredAt: at(5),
          provider: 'manual',
          actor: 'ops',
          note: 'asked by phone',
        },
      },
      softBounces: {},
      topics: {},
      audit: [{ action: 'suppress', actor: 'ops', reason: 'asked by phone', at: at(5) }],
    });
    expect(result).toMatchObject({ changed: true, effect: 'suppressed', becameSuppressed: true });
    expect(suppressManually(result.record, EMAIL, { actor: 'ops', reason: 'asked by phone', at: at(5) }).changed).toBe(
      false,
    );
  });

  it('is cleared by a reactivation dated at or after it, not by one before it', () => {
    const manual = build(suppressOp(5))!;
    expect(reactivate(manual, { actor: 'a', reason: 'r', at: at(5) }).record.status).toBe('active');
    expect(reactivate(manual, { actor: 'a', reason: 'r', at: at(4) }).record.status).toBe('suppressed');
  });

  it('dated at or before the latest reactivation, it is audited but does not suppress', () => {
    const result = suppressManually(build(reactivateOp(10)), EMAIL, { actor: 'ops', reason: 'late', at: at(9) });
    expect(result.record.status).toBe('active');
    expect(result.effect).toBe('ignored_before_reactivation');
    expect(result.record.audit).toHaveLength(2);
  });

  it('refuses a record of another address and a malformed address', () => {
    expect(() =>
      suppressManually(build(suppressOp(1)), 'other@example.com', { actor: 'a', reason: 'r', at: 1 }),
    ).toThrow(TypeError);
    expect(() => suppressManually(undefined, 'not an address', { actor: 'a', reason: 'r', at: 1 })).toThrow();
  });
});
