/**
 * Reading a stored item back into facts (readFacts), and facts back into a record (normalize): every
 * malformed shape is refused with the field it names, well-formed items round-trip exactly, and the
 * audit union, min/max helpers and key orders are pinned to exact values.
 */
import { describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  DEFAULT_RATCHET_POLICY,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';
import {
  type Facts,
  maxDefined,
  minDefined,
  normalize,
  readFacts,
  unionAudit,
} from '../../../lambdas/core/suppression/normalize.js';
import { EMAIL } from './support.js';

const POLICY = DEFAULT_RATCHET_POLICY;
const base = {
  email: EMAIL,
  status: 'active',
  transactionalStatus: 'active',
  reasons: [],
  evidence: {},
  softBounces: {},
  topics: {},
  audit: [],
};
const item = (overrides: Record<string, unknown>): SuppressionRecord =>
  ({ ...base, ...overrides }) as unknown as SuppressionRecord;
const complaint = { kind: 'complaint', occurredAt: 5, provider: 'ses' };
const audit = { action: 'suppress', actor: 'ops', reason: 'asked', at: 7 };
const facts = (overrides: Partial<Facts> = {}): Facts => ({
  email: EMAIL,
  evidence: {},
  softBounces: {},
  topics: {},
  audit: [],
  ...overrides,
});

describe('readFacts refuses a malformed item, naming the field', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no email', { email: undefined }, 'email'],
    ['empty email', { email: '' }, 'email'],
    ['numeric email', { email: 5 }, 'email'],
    ['string firstEventAt', { firstEventAt: '1' }, 'firstEventAt'],
    ['NaN lastEventAt', { lastEventAt: Number.NaN }, 'lastEventAt'],
    ['infinite lastDeliveredAt', { lastDeliveredAt: Infinity }, 'lastDeliveredAt'],
    ['boolean reactivatedAt', { reactivatedAt: true }, 'reactivatedAt'],
    ['NaN softBounceLimitAt', { softBounceLimitAt: Number.NaN }, 'softBounceLimitAt'],
    ['evidence not a map', { evidence: 'x' }, 'evidence'],
    [
      'evidence holding a soft bounce',
      { evidence: { k: { ...complaint, kind: 'soft_bounce' } } },
      'evidence holds a soft_bounce entry',
    ],
    [
      'evidence holding a subscribe',
      { evidence: { k: { ...complaint, kind: 'subscribe' } } },
      'evidence holds a subscribe entry',
    ],
    ['softBounces not a map', { softBounces: 3 }, 'softBounces'],
    ['softBounces holding a complaint', { softBounces: { k: complaint } }, 'softBounces holds a complaint entry'],
    ['evidence entry not an object', { evidence: { k: 'x' } }, 'evidence entry'],
    ['evidence entry of unknown kind', { evidence: { k: { ...complaint, kind: 'spam' } } }, 'evidence kind'],
    ['evidence entry without a time', { evidence: { k: { ...complaint, occurredAt: '5' } } }, 'evidence occurredAt'],
    [
      'evidence entry with a NaN time',
      { evidence: { k: { ...complaint, occurredAt: Number.NaN } } },
      'evidence occurredAt',
    ],
    ['evidence entry without provider', { evidence: { k: { ...complaint, provider: 1 } } }, 'evidence provider'],
    [
      'evidence entry with a numeric bounceType',
      { evidence: { k: { ...complaint, bounceType: 1 } } },
      'evidence bounceType',
    ],
    ['evidence entry with a boolean note', { evidence: { k: { ...complaint, note: false } } }, 'evidence note'],
    ['evidence entry with a string echo', { evidence: { k: { ...complaint, echo: 'yes' } } }, 'evidence echo'],
    ['topic state null', { topics: { news: null } }, 'topic state'],
    ['topic state a string', { topics: { news: 'unsubscribed' } }, 'topic state'],
    [
      'topic evidence holding a hard bounce',
      { topics: { news: { evidence: { k: { ...complaint, kind: 'hard_bounce' } } } } },
      'topic evidence holds a hard_bounce entry',
    ],
    ['topic evidence not a map', { topics: { news: { evidence: 'x' } } }, 'topic evidence'],
    ['audit not a list', { audit: {} }, 'audit'],
    ['audit entry not an object', { audit: [null] }, 'audit entry'],
    ['audit entry of unknown action', { audit: [{ ...audit, action: 'delete' }] }, 'audit action'],
    ['audit entry without actor', { audit: [{ ...audit, actor: 1 }] }, 'audit actor/reason'],
    ['audit entry without reason', { audit: [{ ...audit, reason: undefined }] }, 'audit actor/reason'],
    ['audit entry with a string time', { audit: [{ ...audit, at: '7' }] }, 'audit at'],
    ['audit entry with a NaN time', { audit: [{ ...audit, at: Number.NaN }] }, 'audit at'],
    ['audit entry with a numeric topic', { audit: [{ ...audit, topic: 5 }] }, 'audit topic'],
  ];
  it.each(cases)('%s', (_name, overrides, field) => {
    expect(() => readFacts(item(overrides))).toThrow(new TypeError(`stored suppression record is malformed: ${field}`));
  });
});

describe('readFacts on a well-formed item', () => {
  it('reads exactly the facts, ignoring derived and adapter fields', () => {
    const stored = item({
      status: 'suppressed',
      reason: 'complaint',
      reasons: ['complaint'],
      suppressedAt: 1,
      firstEventAt: 2,
      lastEventAt: 9,
      lastDeliveredAt: 3,
      reactivatedAt: 1,
      softBounceLimitAt: 4,
      version: 7,
      updatedAt: 'x',
      evidence: { 'complaint:ses#a': { ...complaint, bounceType: 'b', echo: false, note: null, actor: undefined } },
      softBounces: {
        'ses#b': { kind: 'soft_bounce', occurredAt: 6, provider: 'ses', echo: null, diagnosticCode: 'd' },
      },
      audit: [
        audit,
        { action: 'reactivate', actor: 'a', reason: 'r', at: 8, topic: 'news' },
        { ...audit, topic: null },
      ],
    });
    expect(readFacts(stored)).toStrictEqual({
      email: EMAIL,
      firstEventAt: 2,
      lastEventAt: 9,
      lastDeliveredAt: 3,
      reactivatedAt: 1,
      softBounceLimitAt: 4,
      evidence: {
        'complaint:ses#a': { kind: 'complaint', occurredAt: 5, provider: 'ses', bounceType: 'b', echo: false },
      },
      topics: {},
      softBounces: { 'ses#b': { kind: 'soft_bounce', occurredAt: 6, provider: 'ses', diagnosticCode: 'd' } },
      audit: [audit, { action: 'reactivate', actor: 'a', reason: 'r', at: 8, topic: 'news' }, audit],
    });
  });

  it('treats null history fields and a missing audit as absent', () => {
    const stored = item({
      firstEventAt: null,
      lastEventAt: null,
      lastDeliveredAt: null,
      reactivatedAt: null,
      softBounceLimitAt: null,
      audit: undefined,
    });
    expect(readFacts(stored)).toStrictEqual(facts());
  });

  it('reads a missing or null topics map (an item written before topics) as no topics', () => {
    expect(readFacts(item({ topics: undefined }))).toStrictEqual(facts());
    expect(readFacts(item({ topics: null }))).toStrictEqual(facts());
  });

  it('round-trips a normalized record exactly', () => {
    const record = normalize(
      facts({
        firstEventAt: 1,
        lastEventAt: 30,
        lastDeliveredAt: 10,
        reactivatedAt: 2,
        evidence: { 'complaint:ses#a': { kind: 'complaint', occurredAt: 20, provider: 'ses' } },
        softBounces: { 'ses#s': { kind: 'soft_bounce', occurredAt: 25, provider: 'ses', bounceType: 'Transient' } },
        audit: [{ action: 'reactivate', actor: 'ops', reason: 'r', at: 2 }],
      }),
      POLICY,
    );
    expect(normalize(readFacts(record), POLICY)).toStrictEqual(record);
    expect(record).toStrictEqual({
      email: EMAIL,
      status: 'suppressed',
      transactionalStatus: 'suppressed',
      reason: 'complaint',
      reasons: ['complaint'],
      suppressedAt: 20,
      firstEventAt: 1,
      lastEventAt: 30,
      lastDeliveredAt: 10,
      reactivatedAt: 2,
      evidence: { 'complaint:ses#a': { kind: 'complaint', occurredAt: 20, provider: 'ses' } },
      softBounces: { 'ses#s': { kind: 'soft_bounce', occurredAt: 25, provider: 'ses', bounceType: 'Transient' } },
      topics: {},
      audit: [{ action: 'reactivate', actor: 'ops', reason: 'r', at: 2 }],
    });
  });
});

describe('normalize', () => {
  it('omits every optional field of an empty record (no undefined keys)', () => {
    const record = normalize(facts(), POLICY);
    expect(Object.keys(record)).toEqual([
      'email',
      'status',
      'transactionalStatus',
      'reasons',
      'evidence',
      'softBounces',
      'topics',
      'audit',
    ]);
  });

  it('drops a sticky soft-bounce limit dated at or before the reactivation', () => {
    const record = normalize(facts({ softBounceLimitAt: 10, reactivatedAt: 10 }), POLICY);
    expect(record.status).toBe('active');
    expect(Object.keys(record)).not.toContain('softBounceLimitAt');
    const kept = normalize(facts({ softBounceLimitAt: 11, reactivatedAt: 10 }), POLICY);
    expect(kept.softBounceLimitAt).toBe(11);
    expect(kept.reasons).toEqual(['soft_bounce_limit']);
  });

  it('keeps soft bounces out of the evidence map', () => {
    const record = normalize(
      facts({ softBounces: { 'ses#s': { kind: 'soft_bounce', occurredAt: 5, provider: 'ses' } } }),
      POLICY,
    );
    expect(record.evidence).toEqual({});
    expect(Object.keys(record.softBounces)).toEqual(['ses#s']);
  });

  it('orders evidence oldest first across kinds, and soft bounces oldest first', () => {
    const record = normalize(
      facts({
        evidence: {
          'complaint:ses#c': { kind: 'complaint', occurredAt: 3, provider: 'ses' },
          'hard_bounce:ses#h': { kind: 'hard_bounce', occurredAt: 1, provider: 'ses' },
          'manual:2': { kind: 'manual', occurredAt: 2, provider: 'manual' },
        },
        softBounces: {
          'ses#late': { kind: 'soft_bounce', occurredAt: 9, provider: 'ses' },
          'ses#early': { kind: 'soft_bounce', occurredAt: 4, provider: 'ses' },
        },
      }),
      POLICY,
    );
    expect(Object.keys(record.evidence)).toEqual(['hard_bounce:ses#h', 'manual:2', 'complaint:ses#c']);
    expect(Object.keys(record.softBounces)).toEqual(['ses#early', 'ses#late']);
    expect(record.reasons).toEqual(['complaint', 'hard_bounce', 'manual']);
    expect(record.reason).toBe('complaint');
    expect(record.suppressedAt).toBe(1);
  });
});

describe('unionAudit', () => {
  const a: AuditEntry = { action: 'suppress', actor: 'ops', reason: 'r', at: 1 };
  const b: AuditEntry = { action: 'reactivate', actor: 'ops', reason: 'r', at: 2 };

  it('keeps distinct entries and drops exact duplicates', () => {
    expect(unionAudit([b, a], [a, b])).toEqual([a, b]);
  });

  it('counts an empty topic as no topic (one entry, the later-listed copy)', () => {
    const emptyTopic: AuditEntry = { ...a, topic: '' };
    expect(unionAudit([a], [emptyTopic])).toStrictEqual([emptyTopic]);
    expect(unionAudit([emptyTopic], [a])).toStrictEqual([a]);
  });

  it('orders an entry without topic before one with a topic, at the same time', () => {
    const withTopic: AuditEntry = { ...a, topic: 'A' };
    expect(unionAudit([withTopic, a])).toStrictEqual([a, withTopic]);
    expect(unionAudit([a, withTopic])).toStrictEqual([a, withTopic]);
  });
});

describe('minDefined / maxDefined', () => {
  it('skip undefined and take the extreme wherever it is', () => {
    expect(minDefined(undefined, 3, 1, undefined, 2)).toBe(1);
    expect(maxDefined(undefined, 1, 3, undefined, 2)).toBe(3);
    expect(minDefined(undefined, undefined)).toBeUndefined();
    expect(maxDefined()).toBeUndefined();
  });
});
