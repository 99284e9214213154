/**
 * importRecord's own rules, one boundary each: when an exported reactivation is considered at all,
 * when it is carried (strictly after everything the table holds in effect, a crossed soft-bounce limit
 * included), which audit entries go with a skipped one, and the effect reported for a change.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  emptyRecord,
  importRecord,
  reactivate,
  readExportedRecord,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { DAY, EMAIL, ev, T0 } from './support.js';

const HOUR = 60 * 60 * 1000;
const by = (actor: string, at: number) => ({ actor, reason: 'asked', at });
const bounce = (at: number, id: string, record?: SuppressionRecord) =>
  applyEvent(record, ev('hard_bounce', at, { id })).record;
/** An export holding nothing but a reactivation at `at`. */
const reactivatedAt = (at: number, actor = 'exporter') => reactivate(emptyRecord(EMAIL), by(actor, at)).record;
const globalReactivations = (record: SuppressionRecord) =>
  record.audit.filter((a) => a.action === 'reactivate' && a.topic === undefined).map((a) => [a.actor, a.at]);

describe('importRecord: which exported reactivation is considered', () => {
  it('an export without a reactivation skips nothing', () => {
    const result = importRecord(bounce(T0, 'table'), applyEvent(undefined, ev('complaint', T0 + DAY)).record);
    expect(result.skipped).toEqual([]);
    expect(result.record.reasons).toEqual(['complaint', 'hard_bounce']);
    expect(result.record.reactivatedAt).toBeUndefined();
  });

  it("one older than the table's own is neither carried nor reported: the table's stays in effect", () => {
    const table = reactivate(bounce(T0, 'table'), by('ops', T0 + 2 * DAY)).record;
    const result = importRecord(table, reactivatedAt(T0 + DAY));
    expect(result.skipped).toEqual([]);
    expect(result.record.reactivatedAt).toBe(T0 + 2 * DAY);
    expect(result.record.status).toBe('active');
  });

  it("one newer than the table's own that lifts nothing is carried", () => {
    const table = reactivate(bounce(T0, 'table'), by('ops', T0 + DAY)).record;
    const result = importRecord(table, reactivatedAt(T0 + 2 * DAY));
    expect(result.skipped).toEqual([]);
    expect(result.record.reactivatedAt).toBe(T0 + 2 * DAY);
    expect(globalReactivations(result.record)).toEqual([
      ['ops', T0 + DAY],
      ['exporter', T0 + 2 * DAY],
    ]);
  });
});

describe('importRecord: a reactivation must be strictly after what the table holds', () => {
  it('evidence dated exactly at the reactivation is lifted by it, so the reactivation is skipped', () => {
    const result = importRecord(bounce(T0 + DAY, 'table'), reactivatedAt(T0 + DAY));
    expect(result.skipped).toEqual([{ what: 'reactivation', at: T0 + DAY }]);
    expect(result.record.status).toBe('suppressed');
    expect(result.record.reactivatedAt).toBeUndefined();
    expect(Object.keys(result.record.evidence)).toEqual(['hard_bounce:ses#table']);
  });

  /** Three soft bounces cross the limit (dated at the first); a delivery then prunes them, the limit stays. */
  function crossedThenDelivered(): SuppressionRecord {
    let r: SuppressionRecord | undefined;
    for (const h of [0, 1, 2]) r = applyEvent(r, ev('soft_bounce', T0 + h * HOUR, { id: `s${h}` })).record;
    r = applyEvent(r, ev('delivered', T0 + 3 * HOUR, { id: 'd' })).record;
    expect(r).toMatchObject({ status: 'suppressed', reasons: ['soft_bounce_limit'], softBounceLimitAt: T0 });
    expect(r.softBounces).toEqual({});
    return r;
  }

  it('a crossed soft-bounce limit dated before it is lifted by it: skipped, still suppressed', () => {
    const result = importRecord(crossedThenDelivered(), reactivatedAt(T0 + 4 * HOUR));
    expect(result.skipped).toEqual([{ what: 'reactivation', at: T0 + 4 * HOUR }]);
    expect(result.record).toMatchObject({ status: 'suppressed', softBounceLimitAt: T0 });
  });

  it('a crossed soft-bounce limit dated exactly at it is lifted too', () => {
    const result = importRecord(crossedThenDelivered(), reactivatedAt(T0));
    expect(result.skipped).toEqual([{ what: 'reactivation', at: T0 }]);
    expect(result.record).toMatchObject({ status: 'suppressed', softBounceLimitAt: T0 });
  });
});

describe('importRecord: the audit entries of a skipped reactivation', () => {
  it("drops only global reactivations after the table's own; keeps earlier ones, equal ones and manual suppressions", () => {
    // The table: bounced, reactivated by ops, bounced again (held in effect).
    const table = bounce(T0 + 2 * DAY, 'again', reactivate(bounce(T0, 'first'), by('ops', T0 + DAY)).record);
    // The export: reactivated at the table's own time and before it, suppressed by hand, reactivated after.
    let exported = reactivate(emptyRecord(EMAIL), by('early', T0 + DAY / 2)).record;
    exported = reactivate(exported, by('same-time', T0 + DAY)).record;
    exported = suppressManually(exported, EMAIL, by('holder', T0 + (3 * DAY) / 2)).record;
    exported = reactivate(exported, by('late', T0 + 3 * DAY)).record;

    const result = importRecord(table, exported);
    expect(result.skipped).toEqual([{ what: 'reactivation', at: T0 + 3 * DAY }]);
    expect(result.record.reactivatedAt).toBe(T0 + DAY);
    expect(result.record.audit.map((a) => [a.action, a.actor, a.at])).toEqual([
      ['reactivate', 'early', T0 + DAY / 2],
      ['reactivate', 'ops', T0 + DAY],
      ['reactivate', 'same-time', T0 + DAY],
      ['suppress', 'holder', T0 + (3 * DAY) / 2],
    ]);
  });
});

describe('importRecord: the effect of a change', () => {
  const suppressedByBounce = () => bounce(T0, 'table');

  it('reason_added: a suppressed table gains a new reason besides the ones it had', () => {
    const exported = applyEvent(bounce(T0, 'table'), ev('complaint', T0 + DAY, { id: 'c' })).record;
    const result = importRecord(suppressedByBounce(), exported);
    expect(result.record.reasons).toEqual(['complaint', 'hard_bounce']);
    expect(result).toMatchObject({ changed: true, effect: 'reason_added', becameSuppressed: false });
  });

  it('evidence_added: a suppressed table gains evidence for a reason it has', () => {
    const result = importRecord(suppressedByBounce(), bounce(T0 + DAY, 'other'));
    expect(Object.keys(result.record.evidence).sort()).toEqual(['hard_bounce:ses#other', 'hard_bounce:ses#table']);
    expect(result).toMatchObject({ changed: true, effect: 'evidence_added', becameSuppressed: false });
  });

  it('evidence_added: an active table gains what does not suppress (one soft bounce)', () => {
    const table = applyEvent(undefined, ev('delivered', T0, { id: 'd' })).record;
    const exported = applyEvent(undefined, ev('soft_bounce', T0 + DAY, { id: 's' })).record;
    const result = importRecord(table, exported);
    expect(result.record.status).toBe('active');
    expect(Object.keys(result.record.softBounces)).toEqual(['ses#s']);
    expect(result).toMatchObject({ changed: true, effect: 'evidence_added', becameSuppressed: false });
  });
});

describe('readExportedRecord: not a record at all', () => {
  it.each([[null], [[]], ['line'], [7]])('refuses %j whole, naming the record', (item) => {
    expect(() => readExportedRecord(item as unknown as Record<string, unknown>)).toThrow(
      new TypeError('stored suppression record is malformed: record'),
    );
  });
});
