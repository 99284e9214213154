/**
 * The suppression table's versioned reader: every older shape that was ever written (fixtures generated
 * by the code that wrote them, test/fixtures/suppression-schema/) reads in today's shape, and today's
 * code treats it exactly as a record it wrote itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEvent, refusalReason, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { normalize, readFacts } from '../../../lambdas/core/suppression/normalize.js';
import { DEFAULT_RATCHET_POLICY } from '../../../lambdas/core/suppression/policy.js';
import {
  CURRENT_SUPPRESSION_SCHEMA,
  isNewerSuppressionSchema,
  SUPPRESSION_SCHEMA_ATTRIBUTE,
  SUPPRESSION_SCHEMA_STEPS,
  suppressionSchemaOf,
  upgradeSuppressionRecord,
} from '../../../lambdas/core/suppression/schema.js';
import { LEGACY_PENDING_KEY, pendingKey } from '../../../lambdas/core/sync/shard.js';

type Fixture = Record<string, Record<string, unknown>>;
const fixture = (name: string): Fixture =>
  JSON.parse(readFileSync(new URL(`../../fixtures/suppression-schema/${name}`, import.meta.url), 'utf8')) as Fixture;
const beforeTopics = fixture('v1-before-topics.json');
const withTopics = fixture('v1-with-topics.json');
const unsharded = fixture('v5-unsharded-marker.json');

/** What today's core makes of an item: the facts it reads, normalized again. */
const renormalized = (item: Record<string, unknown>) =>
  normalize(readFacts(item as unknown as SuppressionRecord), DEFAULT_RATCHET_POLICY);
const withoutBookkeeping = (item: Record<string, unknown>) => {
  const { version: _version, updatedAt: _updatedAt, [SUPPRESSION_SCHEMA_ATTRIBUTE]: _schema, ...record } = item;
  return record;
};

describe('the attribute and the version', () => {
  it('is `schemaVersion` (not `version`, the lock counter), and today is 6', () => {
    expect(SUPPRESSION_SCHEMA_ATTRIBUTE).toBe('schemaVersion');
    expect(CURRENT_SUPPRESSION_SCHEMA).toBe(6);
    expect(SUPPRESSION_SCHEMA_STEPS.map((s) => [s.from, s.change])).toEqual([
      [1, 'topics and transactionalStatus'],
      [2, 'messageId on evidence and soft-bounce entries'],
      [3, 'discounted evidence kept by reactivations'],
      [4, 'sync map and outbox marker'],
      [5, 'sharded outbox marker, retry start per provider'],
    ]);
  });

  it('an item without the attribute is version 1; a number is its version; anything else is refused', () => {
    expect(suppressionSchemaOf({})).toBe(1);
    expect(suppressionSchemaOf({ schemaVersion: null })).toBe(1);
    expect(suppressionSchemaOf({ schemaVersion: 2, version: 7 })).toBe(2);
    expect(() => suppressionSchemaOf({ schemaVersion: '2' })).toThrow(
      'suppression item has a string schemaVersion, not a version number',
    );
    expect(() => upgradeSuppressionRecord({ schemaVersion: 0 })).toThrow(
      'suppression schema version 0 is not a version',
    );
  });

  it('knows which items newer code wrote', () => {
    expect(
      [
        {},
        { schemaVersion: 1 },
        { schemaVersion: 2 },
        { schemaVersion: 3 },
        { schemaVersion: 4 },
        { schemaVersion: 5 },
        { schemaVersion: 6 },
        { schemaVersion: 7 },
      ].map(isNewerSuppressionSchema),
    ).toEqual([false, false, false, false, false, false, false, true]);
  });
});

describe('version 1, before topics (as commit 04dd03f wrote it)', () => {
  it.each([
    ['unsubscribed', 'active'],
    ['bounced', 'suppressed'],
    ['reactivated', 'active'],
  ])('%s: gains topics {} and transactionalStatus %s, and nothing else changes', (name, transactionalStatus) => {
    const old = beforeTopics[name]!;
    const upgraded = upgradeSuppressionRecord(old);
    expect(upgraded).toEqual({ ...old, topics: {}, transactionalStatus, schemaVersion: 6 });
    // What today's writer would store for the same facts, field for field.
    expect(withoutBookkeeping(upgraded)).toEqual(renormalized(old));
  });

  it('answers sending code the way a record written today does', () => {
    const read = (name: string) => upgradeSuppressionRecord(beforeTopics[name]!);
    expect(refusalReason(read('unsubscribed'))).toBe('unsubscribe');
    expect(refusalReason(read('unsubscribed'), { transactional: true })).toBeUndefined();
    expect(refusalReason(read('bounced'), { transactional: true })).toBe('hard_bounce');
    expect(refusalReason(read('reactivated'), { transactional: true, topic: 'news' })).toBeUndefined();
  });

  it('an event applied to it changes only what the event changes', () => {
    const upgraded = withoutBookkeeping(
      upgradeSuppressionRecord(beforeTopics['unsubscribed']!),
    ) as unknown as SuppressionRecord;
    // A duplicate of the stored unsubscribe: nothing to write, now that the reader brought the shape up to date.
    const replay = applyEvent(upgraded, {
      provider: 'ses',
      eventId: 'u1',
      recipient: 'old@example.com',
      kind: 'unsubscribe',
      occurredAt: upgraded.suppressedAt!,
      detail: { providerEventType: 'Subscription' },
      raw: '',
    });
    expect(replay).toMatchObject({ changed: false, effect: 'no_change' });
  });

  it('does not change the item it was given', () => {
    const old = structuredClone(beforeTopics['bounced']!);
    upgradeSuppressionRecord(old);
    expect(old).toEqual(beforeTopics['bounced']);
  });
});

describe('version 1, with topics (as commit ba7bc91 wrote it, before the attribute)', () => {
  it('keeps its topics and transactionalStatus as stored, only the version is added', () => {
    const old = withTopics['unsubscribed']!;
    expect(upgradeSuppressionRecord(old)).toEqual({ ...old, schemaVersion: 6 });
    expect(refusalReason(upgradeSuppressionRecord(old), { transactional: true, topic: 'offers' })).toBe(
      'topic_unsubscribed',
    );
  });
});

describe('version 2, before message ids', () => {
  it('reads unchanged but for the version: an entry without a messageId is a strike of its own, as it was', () => {
    const old = { ...withTopics['unsubscribed']!, schemaVersion: 2 };
    expect(upgradeSuppressionRecord(old)).toEqual({ ...old, schemaVersion: 6 });
  });
});

describe('the version 1 → 2 step on its own (it also runs on the projections the send answer reads)', () => {
  const upgrade = SUPPRESSION_SCHEMA_STEPS[0]!.upgrade;
  it.each<[string, Record<string, unknown>, string]>([
    ['an unsubscribe only', { status: 'suppressed', reasons: ['unsubscribe'] }, 'active'],
    [
      'a reason besides the unsubscribe',
      { status: 'suppressed', reasons: ['unsubscribe', 'soft_bounce_limit'] },
      'suppressed',
    ],
    ['a listed complaint, whatever the status says', { status: 'active', reasons: ['complaint'] }, 'suppressed'],
    ['suppressed with an empty list: fail closed', { status: 'suppressed', reasons: [] }, 'suppressed'],
    ['suppressed with no list: fail closed', { status: 'suppressed' }, 'suppressed'],
    ['suppressed, only unreadable reasons: fail closed', { status: 'suppressed', reasons: [7, null] }, 'suppressed'],
    ['suppressed, reasons not a list: fail closed', { status: 'suppressed', reasons: 'complaint' }, 'suppressed'],
    ['active with an empty list', { status: 'active', reasons: [] }, 'active'],
    ['active, unreadable reasons only', { status: 'active', reasons: [7] }, 'active'],
    ['nothing at all', {}, 'active'],
  ])('%s → transactionalStatus %s', (_name, item, expected) => {
    expect(upgrade(item)['transactionalStatus']).toBe(expected);
  });

  it('never replaces a stored transactionalStatus or topics map, and leaves other attributes alone', () => {
    const topics = { news: { status: 'unsubscribed' } };
    expect(
      upgrade({ status: 'suppressed', reasons: ['complaint'], transactionalStatus: 'active', topics, email: 'a@x' }),
    ).toEqual({
      status: 'suppressed',
      reasons: ['complaint'],
      transactionalStatus: 'active',
      topics,
      email: 'a@x',
    });
    expect(upgrade({ topics: null })['topics']).toBeNull();
  });
});

describe('version 5, the outbox marker in one partition (as commit 2bb2cda wrote it)', () => {
  it.each(Object.keys(unsharded))('%s: the marker reads as its shard, everything else unchanged', (name) => {
    const old = unsharded[name]!;
    expect(old['syncPending']).toBe(LEGACY_PENDING_KEY);
    const upgraded = upgradeSuppressionRecord(old);
    expect(upgraded).toEqual({ ...old, syncPending: pendingKey(String(old['email'])), schemaVersion: 6 });
    expect(upgraded['syncPending']).toMatch(/^pending#([0-9]|1[0-5])$/);
  });

  it('leaves an item without a marker, or a projection without the address, alone', () => {
    const { syncPending: _p, syncDue: _d, ...cleared } = unsharded['complaint']!;
    expect(upgradeSuppressionRecord({ ...cleared, schemaVersion: 5 })).toEqual({ ...cleared, schemaVersion: 6 });
    expect(upgradeSuppressionRecord({ syncPending: 'pending', schemaVersion: 5 })).toEqual({
      syncPending: 'pending',
      schemaVersion: 6,
    });
  });
});

describe('an item written by newer code', () => {
  it('is returned as it is, with its own version, so an older reader still sees the fields it knows', () => {
    const newer = { email: 'a@x', status: 'suppressed', schemaVersion: 7, sync: { ses: 'pending' } };
    expect(upgradeSuppressionRecord(newer)).toBe(newer);
  });
});
