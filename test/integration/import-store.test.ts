/**
 * The import's write path on real dynalite: a new address (an entry, or a whole exported record) costs
 * one create-only PutItem and no read; when a record exists (a re-run, or a consumer that wrote first)
 * the create is refused and the entry is merged on the guarded path, with exactly the outcome of the
 * pure `importEntry` (or `importRecord`).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import {
  applyEvent,
  type ImportedEntry,
  importEntry,
  importRecord,
  reactivate,
  type SuppressionRecord,
} from '../../lambdas/core/suppression/index.js';
import { suppressionTablesOnDynalite } from './store-tables.js';

const T0 = Date.UTC(2025, 0, 1);
const DAY = 86_400_000;
const entry = (over: Partial<ImportedEntry> = {}): ImportedEntry => ({
  kind: 'hard_bounce',
  occurredAt: T0,
  actor: 'import:bounces.csv',
  entryId: 'e1',
  source: 'mailgun-bounces',
  note: '550 No such mailbox',
  ...over,
});

describe('DynamoSuppressionStore.importEntry on dynalite', () => {
  const tables = suppressionTablesOnDynalite();
  const { sent } = tables;
  let store: DynamoSuppressionStore;

  beforeEach(() => {
    store = new DynamoSuppressionStore(tables.doc(), tables.table(), undefined, { now: () => T0 + 10 * DAY });
  });

  const stored = async (email: string) => {
    const item = (await store.get(email))!;
    // The sync outbox attributes (syncChange, syncPending, syncDue, sync) are the adapter's, like version.
    const {
      version,
      updatedAt,
      syncChange: _c,
      syncPending: _p,
      syncDue: _d,
      sync: _s,
      schemaVersion: _v,
      ...record
    } = item as typeof item & Record<string, unknown>;
    return { version, updatedAt, record: record as SuppressionRecord };
  };
  const complaint = (email: string, at: number): Omit<NormalizedEvent, 'raw'> => ({
    provider: 'generic',
    eventId: `c-${at}`,
    recipient: email,
    kind: 'complaint',
    occurredAt: at,
    detail: {},
  });

  it('a new address: one conditional PutItem, no read, version 1', async () => {
    const result = await store.importEntry(' New@Example.com ', entry());
    expect(sent).toEqual(['PutItemCommand']);
    expect(result).toMatchObject({ changed: true, effect: 'suppressed' });
    const { version, updatedAt, record } = await stored('new@example.com');
    expect({ version, updatedAt }).toEqual({ version: 1, updatedAt: T0 + 10 * DAY });
    expect(record).toEqual(importEntry(undefined, 'new@example.com', entry()).record);
  });

  it('the same entry again: the create is refused, the read finds it, nothing is written (already present)', async () => {
    await store.importEntry('again@example.com', entry());
    sent.length = 0;
    const again = await store.importEntry('again@example.com', entry());
    expect(again.changed).toBe(false);
    expect(sent).toEqual(['PutItemCommand', 'GetItemCommand']);
    expect((await stored('again@example.com')).version).toBe(1);
  });

  it('a record a consumer wrote first: merged on the guarded path, never lifted, evidence and actor as the pure merge', async () => {
    const email = 'complained@example.com';
    await store.apply(complaint(email, T0));
    const before = (await stored(email)).record;
    sent.length = 0;
    const result = await store.importEntry(email, entry({ kind: 'unsubscribe', occurredAt: T0 + DAY }));
    expect(sent).toEqual(['PutItemCommand', 'GetItemCommand', 'PutItemCommand']);
    const after = await stored(email);
    expect(after.version).toBe(2);
    expect(after.record).toEqual(
      importEntry(before, email, entry({ kind: 'unsubscribe', occurredAt: T0 + DAY })).record,
    );
    expect(after.record).toMatchObject({
      status: 'suppressed',
      reason: 'complaint',
      reasons: ['complaint', 'unsubscribe'],
    });
    expect(result.record).toEqual(after.record);
  });

  it('racing on one new address: one create wins, every other entry (and a consumer event) is merged, none lost', async () => {
    const email = 'race@example.com';
    const entries = Array.from({ length: 12 }, (_, i) =>
      entry({ entryId: `r${i}`, kind: i % 3 === 0 ? 'unsubscribe' : 'hard_bounce', occurredAt: T0 + i * 60_000 }),
    );
    const event = complaint(email, T0 + 30 * 60_000);
    const results = await Promise.all([...entries.map((e) => store.importEntry(email, e)), store.apply(event)]);
    expect(results.every((r) => r.changed)).toBe(true);
    // Applied one after the other, in any order, the same evidence lands (evidence is a union).
    let sequential: SuppressionRecord | undefined;
    for (const e of entries) sequential = importEntry(sequential, email, e).record;
    sequential = applyEvent(sequential, { ...event, raw: '' }).record;
    const after = await stored(email);
    expect(Object.keys(after.record.evidence).sort()).toEqual(Object.keys(sequential!.evidence).sort());
    expect(after.record).toMatchObject({ status: 'suppressed', firstEventAt: T0, lastEventAt: T0 + 30 * 60_000 });
    expect(after.version).toBe(entries.length + 1);
    // Only one create can win: the other entries and the consumer each read before their write.
    expect(sent.filter((name) => name === 'GetItemCommand').length).toBeGreaterThanOrEqual(entries.length);
  });

  it('an entry dated before a reactivation does not re-suppress: the record equals the pure merge', async () => {
    const email = 'audit@example.com';
    const suppressed = importEntry(undefined, email, entry()).record;
    const expected = importEntry(
      reactivate(suppressed, { actor: 'ops', reason: 'ok', at: T0 + DAY }).record,
      email,
      entry({ entryId: 'old', occurredAt: T0 }),
    );
    await store.importEntry(email, entry());
    await store.reactivate(email, { actor: 'ops', reason: 'ok', at: T0 + DAY });
    await store.importEntry(email, entry({ entryId: 'old', occurredAt: T0 }));
    expect((await stored(email)).record).toEqual(expected.record);
  });

  it('an exported record: one create-only PutItem for a new address; again, a read and no write', async () => {
    const email = 'exported@example.com';
    let exported = applyEvent(undefined, { ...complaint(email, T0), raw: '' }).record;
    exported = reactivate(exported, { actor: 'ops', reason: 'asked', at: T0 + DAY }).record;
    const fresh = await store.importRecord(exported);
    expect(sent).toEqual(['PutItemCommand']);
    expect(fresh).toMatchObject({ changed: true, skipped: [] });
    const first = await stored(email);
    expect(first.record).toEqual(exported);
    sent.length = 0;
    const again = await store.importRecord(exported);
    expect(again).toMatchObject({ changed: false, skipped: [] });
    expect(sent).toEqual(['PutItemCommand', 'GetItemCommand']);
    expect(await stored(email)).toEqual(first);
  });

  it('an exported record whose reactivation would lift a held suppression: merged without it, skipped named', async () => {
    const email = 'held@example.com';
    await store.importEntry(email, entry({ occurredAt: T0 + DAY / 2 }));
    const before = (await stored(email)).record;
    let exported = applyEvent(undefined, { ...complaint(email, T0), raw: '' }).record;
    exported = reactivate(exported, { actor: 'ops', reason: 'asked', at: T0 + DAY }).record;
    const result = await store.importRecord(exported);
    expect(result.skipped).toEqual([{ what: 'reactivation', at: T0 + DAY }]);
    const after = await stored(email);
    expect(after.version).toBe(2);
    expect(after.record).toEqual(importRecord(before, exported).record);
    expect(after.record).toMatchObject({ status: 'suppressed', reasons: ['complaint', 'hard_bounce'] });
  });
});
