/**
 * The consumer's and the operator's write path on real dynalite: a change that suppresses (a hard
 * bounce, complaint, unsubscribe, manual suppression or topic opt-out) is first tried as one
 * create-only PutItem without a read, since sending code checks the list before it mails and such an
 * address almost never has a record yet. Where one exists the create is refused and the change is
 * merged on the guarded path (dynalite returns no item with the refusal, so it reads), with the outcome
 * of applying it to the stored record. Changes that usually find a record (soft bounces, deliveries)
 * read first, as before.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import type { ActionableKind, NormalizedEvent } from '../../lambdas/core/event.js';
import { skipWithoutRecord } from '../../lambdas/core/pipeline/write-policy.js';
import { applyEvent, type SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import { suppressionTablesOnDynalite } from './store-tables.js';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

const event = (kind: ActionableKind, recipient: string, at: number): Omit<NormalizedEvent, 'raw'> => ({
  provider: 'generic',
  eventId: `${kind}-${at}`,
  recipient,
  kind,
  occurredAt: at,
  detail: {},
});

describe('DynamoSuppressionStore: create-first writes on dynalite', () => {
  const tables = suppressionTablesOnDynalite();
  const { sent } = tables;
  let store: DynamoSuppressionStore;
  let syncChanges: string[];

  beforeEach(() => {
    syncChanges = [];
    store = new DynamoSuppressionStore(tables.doc(), tables.table(), undefined, {
      onSyncChange: async (email) => void syncChanges.push(email),
    });
  });

  const stored = async (email: string) => {
    const item = (await store.get(email))! as SuppressionRecord & Record<string, unknown>;
    const {
      version,
      updatedAt: _u,
      syncChange,
      syncPending: _p,
      syncDue: _d,
      sync: _s,
      schemaVersion: _v,
      ...record
    } = item;
    return { version, syncChange, record: record as SuppressionRecord };
  };

  it.each<ActionableKind>(['hard_bounce', 'complaint', 'unsubscribe'])(
    'a %s for a new address: one create-only PutItem, no read, version 1, and the sync fast path told once',
    async (kind) => {
      const email = `${kind}@example.com`;
      const result = await store.apply(event(kind, email, T0));
      expect(result).toMatchObject({ changed: true, effect: 'suppressed', becameSuppressed: true });
      expect(sent).toEqual(['PutItemCommand']);
      const { version, syncChange, record } = await stored(email);
      expect(version).toBe(1);
      expect(syncChange).toBe(1);
      expect(record).toEqual(applyEvent(undefined, { ...event(kind, email, T0), raw: '' }).record);
      expect(syncChanges).toEqual([email]);
    },
  );

  it('a manual suppression and a manual topic opt-out of new addresses: no read either', async () => {
    await store.suppress('manual@example.com', { actor: 'ops', reason: 'asked by phone', at: T0 });
    await store.unsubscribeTopic('topic@example.com', 'newsletter', { actor: 'ops', reason: 'asked', at: T0 });
    expect(sent).toEqual(['PutItemCommand', 'PutItemCommand']);
    expect((await stored('manual@example.com')).record).toMatchObject({ status: 'suppressed', reasons: ['manual'] });
    expect((await stored('topic@example.com')).record).toMatchObject({
      status: 'active',
      topics: { newsletter: { status: 'unsubscribed' } },
    });
  });

  it('an address with a record: the create is refused, the read finds it, and the change is merged on its version', async () => {
    const email = 'known@example.com';
    await store.unsubscribeTopic(email, 'newsletter', { actor: 'ops', reason: 'asked', at: T0 });
    const before = (await stored(email)).record;
    sent.length = 0;
    syncChanges = [];
    const complaint = event('complaint', email, T0 + HOUR);
    expect(await store.apply(complaint)).toMatchObject({ changed: true, becameSuppressed: true });
    expect(sent).toEqual(['PutItemCommand', 'GetItemCommand', 'PutItemCommand']);
    const after = await stored(email);
    expect(after.version).toBe(2);
    expect(after.record).toEqual(applyEvent(before, { ...complaint, raw: '' }).record);
    // The opt-out the refused create would have overwritten is still there.
    expect(after.record.topics?.newsletter?.status).toBe('unsubscribed');
    expect(syncChanges).toEqual([email]);
  });

  it('the same complaint again: refused, read, nothing written (what the old read-first path wrote: nothing)', async () => {
    const complaint = event('complaint', 'again@example.com', T0);
    await store.apply(complaint);
    sent.length = 0;
    expect(await store.apply(complaint)).toMatchObject({ changed: false });
    expect(sent).toEqual(['PutItemCommand', 'GetItemCommand']);
    expect((await stored('again@example.com')).version).toBe(1);
  });

  it('a soft bounce and a delivery read first: they usually find a record, where a create would be refused', async () => {
    await store.apply(event('soft_bounce', 'soft@example.com', T0));
    expect(sent).toEqual(['GetItemCommand', 'PutItemCommand']);
    sent.length = 0;
    await store.apply(event('delivered', 'soft@example.com', T0 + HOUR), skipWithoutRecord);
    expect(sent[0]).toBe('GetItemCommand');
    sent.length = 0;
    await store.apply(event('delivered', 'nobody@example.com', T0), skipWithoutRecord);
    expect(sent).toEqual(['GetItemCommand']);
    expect(await store.get('nobody@example.com')).toBeUndefined();
  });

  it('twenty suppressing events racing on one new address: one create wins, every other is merged, none lost', async () => {
    const email = 'race@example.com';
    const kinds: ActionableKind[] = ['hard_bounce', 'complaint', 'unsubscribe'];
    const events = Array.from({ length: 20 }, (_, i) => event(kinds[i % 3]!, email, T0 + i * HOUR));
    await Promise.all(events.map((e) => store.apply(e)));
    const inOrder = events.reduce<SuppressionRecord | undefined>(
      (record, e) => applyEvent(record, { ...e, raw: '' }).record,
      undefined,
    );
    const { record, version } = await stored(email);
    expect(record).toEqual(inOrder);
    expect(version).toBe(20);
  });
});
