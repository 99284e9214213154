/**
 * A whole exported record imported back: into nothing it is the same record, into itself it changes
 * nothing, merged by its keys, and it never lifts a suppression (an exported reactivation that would
 * is skipped and reported, its audit entries with it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  changeTopicManually,
  importRecord,
  reactivate,
  readExportedRecord,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { CURRENT_SUPPRESSION_SCHEMA } from '../../../lambdas/core/suppression/schema.js';
import { propertyRuns } from '../support/property-runs.js';
import { DAY, EMAIL, ev, fold, opSet, PROPERTY_POLICY, T0 } from './support.js';

const ops = { actor: 'ops', reason: 'asked' };
/** A bounce and a complaint, the complaint reactivated, a topic out and another back in, a manual hold. */
function richRecord(): SuppressionRecord {
  let r = applyEvent(undefined, ev('complaint', T0, { provider: 'ses', messageId: 'm1' })).record;
  r = reactivate(r, { ...ops, at: T0 + DAY }).record;
  r = applyEvent(
    r,
    ev('hard_bounce', T0 + 2 * DAY, { provider: 'mailgun', detail: { diagnosticCode: '550 "no", sir' } }),
  ).record;
  r = applyEvent(r, ev('soft_bounce', T0 + 3 * DAY, { provider: 'postmark', messageId: 'm2' })).record;
  r = applyEvent(r, {
    ...ev('unsubscribe', T0 + 4 * DAY, { provider: 'sendgrid' }),
    topic: 'sendgrid:group:42',
  }).record;
  r = changeTopicManually(r, EMAIL, 'news', 'subscribe', { ...ops, at: T0 + 5 * DAY }).record;
  return suppressManually(r, EMAIL, { ...ops, at: T0 + 6 * DAY }).record;
}

describe('importRecord', () => {
  it('into nothing gives the exported record; into itself changes nothing', () => {
    const exported = richRecord();
    expect(exported.discounted).toBeDefined();
    const fresh = importRecord(undefined, exported);
    expect(fresh).toMatchObject({ changed: true, effect: 'suppressed', skipped: [] });
    expect(fresh.record).toEqual(exported);
    expect(importRecord(exported, exported)).toMatchObject({ changed: false, effect: 'no_change', skipped: [] });
  });

  it('merges by key: a record holding part of the export gains the rest, and nothing twice', () => {
    const exported = richRecord();
    const partial = applyEvent(undefined, ev('complaint', T0 + 7 * DAY, { provider: 'ses', id: 'x' })).record;
    const merged = importRecord(partial, exported).record;
    expect(Object.keys(merged.evidence).sort()).toEqual([...Object.keys(exported.evidence), 'complaint:ses#x'].sort());
    expect(merged.discounted).toEqual(exported.discounted);
    expect(importRecord(merged, exported).changed).toBe(false);
  });

  it('never lifts: a reactivation that would discount evidence the table holds is skipped, with its audit entries', () => {
    const exported = richRecord();
    // The table holds a bounce dated before the export's reactivation (T0 + 1 day).
    const held = applyEvent(undefined, ev('hard_bounce', T0 + DAY / 2, { provider: 'ses', id: 'b' })).record;
    const result = importRecord(held, exported);
    expect(result.skipped).toEqual([{ what: 'reactivation', at: T0 + DAY }]);
    expect(result.record.reactivatedAt).toBeUndefined();
    expect(result.record.audit.filter((a) => a.action === 'reactivate' && a.topic === undefined)).toEqual([]);
    // The topic restore is consent, not a lifted suppression: its audit entry comes across.
    expect(result.record.audit).toContainEqual(expect.objectContaining({ action: 'reactivate', topic: 'news' }));
    expect(result.record.evidence).toHaveProperty(['hard_bounce:ses#b']);
    // The complaint the export had discounted counts here: the table never reactivated the address.
    expect(result.record.reasons).toEqual(['complaint', 'hard_bounce', 'manual']);
    expect(result.record.discounted).toBeUndefined();
  });

  it('carries a reactivation that discounts nothing the table holds', () => {
    const exported = richRecord();
    const later = applyEvent(undefined, ev('unsubscribe', T0 + 10 * DAY, { provider: 'ses', id: 'u' })).record;
    const result = importRecord(later, exported);
    expect(result.skipped).toEqual([]);
    expect(result.record.reactivatedAt).toBe(T0 + DAY);
    expect(Object.keys(result.record.discounted ?? {})).toEqual(Object.keys(exported.discounted!));
    expect(result.record.reasons).toEqual(['hard_bounce', 'unsubscribe', 'manual']);
  });

  it('a topic follows its latest change by date, from either side', () => {
    const exported = richRecord();
    const topic = 'sendgrid:group:42';
    const out = (at: number) =>
      applyEvent(undefined, { ...ev('subscribe', at, { provider: 'sendgrid', id: `s${at}` }), topic }).record;
    expect(importRecord(out(T0 + 5 * DAY), exported).record.topics[topic]?.status).toBe('subscribed');
    expect(importRecord(out(T0 + 3 * DAY), exported).record.topics[topic]?.status).toBe('unsubscribed');
  });

  it('property: for any two histories of one address, into nothing is the record, into itself no change, and nothing suppressed is lifted', () => {
    fc.assert(
      fc.property(opSet(14), opSet(14), (a, b) => {
        const held = fold(a, PROPERTY_POLICY);
        const exported = fold(b, PROPERTY_POLICY);
        if (!held || !exported) return;
        expect(importRecord(undefined, exported, PROPERTY_POLICY).record).toEqual(exported);
        expect(importRecord(exported, exported, PROPERTY_POLICY).changed).toBe(false);
        const merged = importRecord(held, exported, PROPERTY_POLICY);
        for (const reason of held.reasons) expect(merged.record.reasons).toContain(reason);
        if (held.transactionalStatus === 'suppressed') expect(merged.record.transactionalStatus).toBe('suppressed');
        expect(importRecord(merged.record, exported, PROPERTY_POLICY).changed).toBe(false);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('readExportedRecord', () => {
  const line = (over: Record<string, unknown> = {}) =>
    JSON.parse(JSON.stringify({ ...richRecord(), schemaVersion: CURRENT_SUPPRESSION_SCHEMA, ...over }));

  it('reads a stored item back as a record, address normalized', () => {
    expect(readExportedRecord(line({ email: ' Someone@Example.COM ' })).email).toBe(EMAIL);
  });

  it('refuses a malformed record, a bad address and a newer schema by name', () => {
    expect(() => readExportedRecord(line({ evidence: { k: { kind: 'nope', occurredAt: 1, provider: 'x' } } }))).toThrow(
      /malformed: evidence kind/,
    );
    expect(() => readExportedRecord(line({ topics: { news: { evidence: {} } } }))).toThrow(/topic without evidence/);
    expect(() => readExportedRecord(line({ email: 'not an address' }))).toThrow(/not an email address/);
    expect(() => readExportedRecord(line({ schemaVersion: CURRENT_SUPPRESSION_SCHEMA + 1 }))).toThrow(
      /is newer than this version of Ratchet reads/,
    );
  });
});
