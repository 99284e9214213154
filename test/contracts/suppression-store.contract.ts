/**
 * The SuppressionStore port's contract, run against MemorySuppressionStore (unit) and
 * DynamoSuppressionStore on dynalite (integration): the consumer reads its own writes, skips what it
 * must not write, and concurrent applies for one address all land (the version guard).
 */
import { describe, expect, it } from 'vitest';
import type { ActionableKind, NormalizedEvent } from '../../lambdas/core/event.js';
import type { SuppressionStore } from '../../lambdas/core/pipeline/ports.js';
import { skipWithoutRecord } from '../../lambdas/core/pipeline/write-policy.js';
import type { SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import { uniqueId } from './unique-id.js';

export interface SuppressionSubject {
  store: SuppressionStore;
  /** The record as stored for `email`, without the store's own bookkeeping; undefined when none. */
  read(email: string): Promise<SuppressionRecord | undefined>;
}

const T0 = Date.UTC(2026, 0, 1);

function applied(
  kind: ActionableKind,
  recipient: string,
  occurredAt: number,
  eventId = uniqueId(kind),
): Omit<NormalizedEvent, 'raw'> {
  return { provider: 'contract', eventId, recipient, kind, occurredAt, detail: {} };
}

/** `make()` gives a store; records from other cases may share its table (each case uses its own address). */
export function describeSuppressionStoreContract(
  name: string,
  make: () => SuppressionSubject | Promise<SuppressionSubject>,
) {
  describe(`SuppressionStore contract: ${name}`, () => {
    const address = () => `${uniqueId('s')}@example.com`;

    it('a complaint suppresses a new address, and the record reads back at once', async () => {
      const { store, read } = await make();
      const email = address();
      const event = applied('complaint', email, T0);
      expect(await store.apply(event)).toMatchObject({ changed: true, becameSuppressed: true, effect: 'suppressed' });
      expect(await read(email)).toMatchObject({ email, status: 'suppressed', reason: 'complaint', suppressedAt: T0 });
    });

    it('the same event applied again changes nothing', async () => {
      const { store, read } = await make();
      const event = applied('hard_bounce', address(), T0);
      await store.apply(event);
      const before = await read(event.recipient);
      expect(await store.apply(event)).toMatchObject({ changed: false, becameSuppressed: false });
      expect(await read(event.recipient)).toEqual(before);
    });

    it("a delivery for an address with no record writes nothing, under the consumer's write policy", async () => {
      const { store, read } = await make();
      const event = applied('delivered', address(), T0);
      expect(await store.apply(event, skipWithoutRecord)).toMatchObject({ changed: false, effect: 'no_change' });
      expect(await read(event.recipient)).toBeUndefined();
    });

    it('without a write policy the same delivery is written (the store asks the policy it is given, none of its own)', async () => {
      const { store, read } = await make();
      const event = applied('delivered', address(), T0);
      expect(await store.apply(event)).toMatchObject({ changed: true, effect: 'delivery_recorded' });
      expect(await read(event.recipient)).toMatchObject({ status: 'active', lastDeliveredAt: T0 });
    });

    it('a later delivery never lifts a suppression', async () => {
      const { store, read } = await make();
      const email = address();
      await store.apply(applied('hard_bounce', email, T0));
      expect(await store.apply(applied('delivered', email, T0 + 60_000))).toMatchObject({ becameSuppressed: false });
      expect(await read(email)).toMatchObject({
        status: 'suppressed',
        reason: 'hard_bounce',
        lastDeliveredAt: T0 + 60_000,
      });
    });

    it('concurrent applies for one address all land, none overwritten', async () => {
      const { store, read } = await make();
      const email = address();
      const events = (
        ['complaint', 'hard_bounce', 'unsubscribe', 'complaint', 'hard_bounce', 'unsubscribe'] as const
      ).map((kind, i) => applied(kind, email, T0 + i * 1_000));
      await Promise.all(events.map((event) => store.apply(event)));
      const record = await read(email);
      expect(Object.keys(record?.evidence ?? {}).sort()).toEqual(
        events.map((e) => `${e.kind}:contract#${e.eventId}`).sort(),
      );
      expect(record).toMatchObject({ firstEventAt: T0, lastEventAt: T0 + 5_000 });
    });
  });
}
