/**
 * The record as a stored item and the API's edges: plain JSON, stable shape, bounded size, hostile
 * ids, items carrying the adapter's attributes, malformed input, and the policy settings.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  emptyRecord,
  isSuppressedRecord,
  mergeRecords,
  policyFromSettings,
  reactivate,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { earliestCrossingStart } from '../../../lambdas/core/suppression/soft-bounce.js';
import { DAY, EMAIL, ev, T0 } from './support.js';

function assertPlainJson(value: unknown, path = 'record'): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    expect(Number.isFinite(value), path).toBe(true);
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) assertPlainJson(v, `${path}[${i}]`);
    return;
  }
  expect(typeof value, path).toBe('object');
  expect(Object.getPrototypeOf(value), path).toBe(Object.prototype);
  for (const [k, v] of Object.entries(value as object)) {
    expect(v, `${path}.${k} is undefined`).not.toBeUndefined();
    assertPlainJson(v, `${path}.${k}`);
  }
}

describe('the stored record', () => {
  it('is plain JSON with a fixed key order, round-tripping unchanged', () => {
    let record: SuppressionRecord | undefined;
    for (const e of [
      ev('delivered', T0),
      ev('soft_bounce', T0 + DAY, { detail: { bounceType: 'Transient' } }),
      ev('complaint', T0 + 2 * DAY),
    ]) {
      record = applyEvent(record, e).record;
    }
    record = reactivate(record!, { actor: 'ops', reason: 'r', at: T0 + 3 * DAY }).record;
    record = suppressManually(record, EMAIL, { actor: 'ops', reason: 'r', at: T0 + 4 * DAY }).record;
    assertPlainJson(record);
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
    expect(Object.keys(record)).toEqual([
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
      'evidence',
      'discounted',
      'softBounces',
      'topics',
      'audit',
    ]);
    expect(emptyRecord(EMAIL)).toEqual({
      email: EMAIL,
      status: 'active',
      transactionalStatus: 'active',
      reasons: [],
      evidence: {},
      softBounces: {},
      topics: {},
      audit: [],
    });
  });

  it('treats an event id of __proto__ as an ordinary key', () => {
    const record = applyEvent(undefined, ev('complaint', T0, { id: '__proto__' })).record;
    expect(Object.getPrototypeOf(record.evidence)).toBe(Object.prototype);
    expect(Object.keys(record.evidence)).toEqual(['complaint:ses#__proto__']);
    const parsed = JSON.parse(JSON.stringify(record)) as SuppressionRecord;
    expect(applyEvent(parsed, ev('complaint', T0, { id: '__proto__' })).changed).toBe(false);
    const tricky = applyEvent(undefined, ev('complaint', T0, { id: 'x', provider: '__proto__' })).record;
    expect(reactivate(tricky, { actor: 'a', reason: 'r', at: T0 }).record.status).toBe('active');
  });

  it('ignores the adapter attributes: not copied, not a change', () => {
    const record = applyEvent(undefined, ev('complaint', T0, { id: 'c' })).record;
    const item = { ...record, version: 7, updatedAt: 123 } as SuppressionRecord;
    const again = applyEvent(item, ev('complaint', T0, { id: 'c' }));
    expect(again.changed).toBe(false);
    expect(again.record).not.toHaveProperty('version');
    expect(again.record).not.toHaveProperty('updatedAt');
    // Key order in a map read back from DynamoDB means nothing either.
    const reordered = Object.fromEntries(Object.entries(record).reverse()) as unknown as SuppressionRecord;
    expect(applyEvent(reordered, ev('complaint', T0, { id: 'c' })).changed).toBe(false);
  });

  it('heals a stored record that is not in normal form (e.g. written under another policy)', () => {
    const strict = { softBounceLimit: 2, softBounceWindowMs: DAY };
    let record: SuppressionRecord | undefined;
    for (const t of [0, 1]) record = applyEvent(record, ev('soft_bounce', T0 + t * 1000, { id: `s${t}` })).record;
    expect(record!.status).toBe('active');
    const replay = applyEvent(record, ev('soft_bounce', T0, { id: 's0' }), strict);
    expect(replay).toMatchObject({ changed: true, becameSuppressed: true });
    expect(replay.record.reason).toBe('soft_bounce_limit');
  });

  it('refuses malformed stored records instead of dropping evidence', () => {
    const good = applyEvent(undefined, ev('complaint', T0)).record;
    const bad: unknown[] = [
      { ...good, email: 7 },
      { ...good, evidence: [] },
      { ...good, evidence: { k: { kind: 'complaint', occurredAt: 'yesterday', provider: 'ses' } } },
      { ...good, evidence: { k: { kind: 'spam', occurredAt: 1, provider: 'ses' } } },
      { ...good, evidence: { k: { kind: 'soft_bounce', occurredAt: 1, provider: 'ses' } } },
      { ...good, softBounces: { k: { kind: 'complaint', occurredAt: 1, provider: 'ses' } } },
      { ...good, audit: [{ action: 'delete', actor: 'a', reason: 'r', at: 1 }] },
      { ...good, reactivatedAt: '2024-01-01' },
    ];
    for (const record of bad)
      expect(() => applyEvent(record as SuppressionRecord, ev('delivered', T0))).toThrow(TypeError);
    // Missing collections are fine: an item written by hand with only the key.
    expect(applyEvent({ email: EMAIL } as SuppressionRecord, ev('complaint', T0)).record.status).toBe('suppressed');
  });

  it('keeps the newest entries of each kind past the cap, and every reason survives', () => {
    let record = applyEvent(undefined, ev('unsubscribe', T0)).record;
    for (let i = 1; i <= 30; i++) record = applyEvent(record, ev('complaint', T0 + i)).record;
    const kinds = Object.values(record.evidence).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'complaint')).toHaveLength(20);
    expect(
      Math.min(
        ...Object.values(record.evidence)
          .filter((e) => e.kind === 'complaint')
          .map((e) => e.occurredAt),
      ),
    ).toBe(T0 + 11);
    expect(record.reasons).toEqual(['complaint', 'unsubscribe']);
    for (let i = 0; i < 60; i++) record = reactivate(record, { actor: `a${i}`, reason: 'r', at: T0 - 1000 + i }).record;
    expect(record.audit).toHaveLength(30);
    expect(record.audit[0]!.actor).toBe('a30');
    expect(JSON.stringify(record).length).toBeLessThan(20_000);
  });

  it('stays far below the 400 KB item limit in the worst case the caps allow', () => {
    const policy = { softBounceLimit: 20, softBounceWindowMs: 0 }; // the largest soft-bounce map
    const long = '€'.repeat(5000); // 3 UTF-8 bytes per UTF-16 unit: the worst case for the clip
    const detail = {
      bounceType: long,
      bounceSubType: long,
      status: long,
      diagnosticCode: long,
      complaintFeedbackType: long,
      providerEventType: long,
      echo: true,
    };
    let record: SuppressionRecord | undefined;
    let n = 0;
    for (const kind of ['complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce'] as const) {
      for (let i = 0; i < 100; i++) {
        // Every message distinct, each id at its longest: the most entries, each the largest.
        const messageId = `${String(n).padStart(8, '0')}${'m'.repeat(248)}`;
        const id = `${String(n++).padStart(36, '0')}:${'x'.repeat(300)}@example.com`;
        record = applyEvent(
          record,
          ev(kind, T0 + i * DAY, { id, provider: 'standard-webhooks', detail, messageId }),
          policy,
        ).record;
      }
    }
    for (let i = 0; i < 100; i++)
      record = suppressManually(record, EMAIL, { actor: long, reason: long, at: T0 + i }, policy).record;
    for (let i = 0; i < 100; i++)
      record = reactivate(record!, { actor: long, reason: long, at: T0 - 1 - i }, policy).record;
    expect(Object.keys(record!.softBounces)).toHaveLength(40);
    expect(Object.keys(record!.evidence)).toHaveLength(80);
    expect(record!.audit).toHaveLength(30);
    // UTF-8 bytes of the JSON: a close upper bound for DynamoDB's item size.
    const bytes = Buffer.byteLength(JSON.stringify(record));
    expect(Object.values(record!.softBounces).every((e) => e.messageId?.length === 256)).toBe(true);
    expect(bytes).toBeLessThan(280_000);
  });

  it('resolves two versions of one event id deterministically: the later-dated one, in either order', () => {
    const a = ev('soft_bounce', T0, { id: 'same' });
    const b = ev('soft_bounce', T0 + 5, { id: 'same' });
    const ab = applyEvent(applyEvent(undefined, a).record, b).record;
    const ba = applyEvent(applyEvent(undefined, b).record, a).record;
    expect(ab).toEqual(ba);
    expect(ab.softBounces).toEqual({ 'ses#same': { kind: 'soft_bounce', occurredAt: T0 + 5, provider: 'ses' } });
    // An id reused for another kind adds evidence; it never replaces (and so never clears) any.
    const complaint = applyEvent(undefined, ev('complaint', T0, { id: 'same' })).record;
    expect(applyEvent(complaint, ev('soft_bounce', T0 + 5, { id: 'same' })).record.reason).toBe('complaint');
  });
});

describe('input checks', () => {
  it('throws on an ignored event, another recipient, or an event without a usable time or id', () => {
    const record = applyEvent(undefined, ev('delivered', T0)).record;
    expect(() => applyEvent(record, { ...ev('delivered', T0), kind: 'ignored' })).toThrow(TypeError);
    expect(() => applyEvent(record, ev('delivered', T0, { recipient: 'other@example.com' }))).toThrow(TypeError);
    expect(() => applyEvent(record, ev('delivered', Number.POSITIVE_INFINITY))).toThrow(TypeError);
    expect(() => applyEvent(record, { ...ev('delivered', T0), eventId: '' })).toThrow(TypeError);
    expect(() => applyEvent(record, ev('delivered', T0), { softBounceLimit: 0, softBounceWindowMs: 1 })).toThrow(
      RangeError,
    );
  });

  it('isSuppressedRecord', () => {
    expect(isSuppressedRecord(undefined)).toBe(false);
    expect(isSuppressedRecord(emptyRecord(EMAIL))).toBe(false);
    expect(isSuppressedRecord(applyEvent(undefined, ev('complaint', T0)).record)).toBe(true);
    expect(
      isSuppressedRecord(mergeRecords(emptyRecord(EMAIL), applyEvent(undefined, ev('complaint', T0)).record)),
    ).toBe(true);
  });
});

describe('policyFromSettings', () => {
  it.each([
    [{}, DEFAULT_RATCHET_POLICY],
    [{ SOFT_BOUNCE_LIMIT: '', SOFT_BOUNCE_WINDOW_DAYS: '  ' }, DEFAULT_RATCHET_POLICY],
    [{ SOFT_BOUNCE_LIMIT: '5' }, { softBounceLimit: 5, softBounceWindowMs: 30 * DAY }],
    [
      { SOFT_BOUNCE_LIMIT: ' 1 ', SOFT_BOUNCE_WINDOW_DAYS: '7' },
      { softBounceLimit: 1, softBounceWindowMs: 7 * DAY },
    ],
    [{ SOFT_BOUNCE_WINDOW_DAYS: '0.5' }, { softBounceLimit: 3, softBounceWindowMs: DAY / 2 }],
  ])('%j → %j', (settings, policy) => {
    expect(policyFromSettings(settings)).toEqual(policy);
  });

  it.each([
    { SOFT_BOUNCE_LIMIT: '0' },
    { SOFT_BOUNCE_LIMIT: '-1' },
    { SOFT_BOUNCE_LIMIT: '2.5' },
    { SOFT_BOUNCE_LIMIT: 'three' },
    { SOFT_BOUNCE_LIMIT: '21' },
    { SOFT_BOUNCE_WINDOW_DAYS: '0' },
    { SOFT_BOUNCE_WINDOW_DAYS: '-3' },
    { SOFT_BOUNCE_WINDOW_DAYS: '1e3' },
    { SOFT_BOUNCE_WINDOW_DAYS: '30d' },
    { SOFT_BOUNCE_WINDOW_DAYS: '3651' },
  ])('%j throws, naming the variable and the value', (settings) => {
    const [name, value] = Object.entries(settings)[0]!;
    expect(() => policyFromSettings(settings)).toThrow(`${name} must be `);
    expect(() => policyFromSettings(settings)).toThrow(`, got ${JSON.stringify(value)}`);
  });
});

describe('earliestCrossingStart', () => {
  it.each([
    [[], 3, 10, undefined],
    [[1, 2], 3, 10, undefined],
    [[1, 2, 3], 3, 2, 1],
    [[1, 2, 4], 3, 2, undefined],
    [[1, 20, 21, 22], 3, 2, 20],
    [[5, 5, 5], 3, 0, 5],
    [[7], 1, 0, 7],
  ])(
    '%j, limit %i, window %i → %s (one bounce per strike: what every record written before message ids holds)',
    (times, limit, window, start) => {
      expect(
        earliestCrossingStart(
          times.map((t) => ({ times: [t], full: false })),
          limit,
          window,
        ),
      ).toBe(start);
    },
  );
});
