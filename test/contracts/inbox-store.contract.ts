/**
 * The InboxStore port's contract, run against MemoryInbox (unit) and DynamoInbox on dynalite
 * (integration), so the fake the edge's unit tests rely on behaves like the table it stands for.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError, TransientError } from '../../lambdas/core/errors.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import type { InboxStore } from '../../lambdas/core/pipeline/ports.js';
import { uniqueId } from './unique-id.js';

export interface InboxSubject {
  inbox: InboxStore;
  /** The raw payload stored under `pk`, undefined when there is no row: which write won. */
  storedRaw(pk: string): Promise<string | undefined>;
  /** Makes the next store fail as the store itself failing would (the table down, throttled). */
  failNextStore(): void;
}

const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 0, 1);

function inboxEvent(eventId: string, overrides: Partial<NormalizedEvent> = {}): NormalizedEvent {
  return {
    provider: 'contract',
    eventId,
    recipient: 'inbox@example.com',
    kind: 'complaint',
    occurredAt: START,
    detail: { diagnosticCode: 'ünïcödé' },
    raw: JSON.stringify({ id: eventId }),
    ...overrides,
  };
}

/** `make(ttlSeconds)` gives a fresh store with that row lifetime; rows from other cases may share its table. */
export function describeInboxStoreContract(
  name: string,
  make: (ttlSeconds: number) => InboxSubject | Promise<InboxSubject>,
) {
  describe(`InboxStore contract: ${name}`, () => {
    it('keys a row by provider#eventId of its first event', async () => {
      const { inbox } = await make(3600);
      const id = uniqueId('key');
      expect(inbox.prepare([inboxEvent(id), inboxEvent(`${id}-2`)], START).pk).toBe(`contract#${id}`);
    });

    it('the first store wins; a second store of the same key returns false', async () => {
      const { inbox, storedRaw } = await make(3600);
      const event = inboxEvent(uniqueId('once'));
      expect(await inbox.store(inbox.prepare([event], START))).toBe(true);
      expect(await inbox.store(inbox.prepare([event], START + 1_000))).toBe(false);
      expect(await storedRaw(`contract#${event.eventId}`)).toBe(event.raw);
    });

    it('the same key with a different payload is a duplicate too, and the first payload is kept', async () => {
      const { inbox, storedRaw } = await make(3600);
      const id = uniqueId('same-key');
      expect(await inbox.store(inbox.prepare([inboxEvent(id, { raw: '{"first":true}' })], START))).toBe(true);
      expect(
        await inbox.store(inbox.prepare([inboxEvent(id, { raw: '{"second":true}', kind: 'hard_bounce' })], START)),
      ).toBe(false);
      expect(await storedRaw(`contract#${id}`)).toBe('{"first":true}');
    });

    it('the same event id from another provider is another row', async () => {
      const { inbox } = await make(3600);
      const id = uniqueId('providers');
      expect(await inbox.store(inbox.prepare([inboxEvent(id)], START))).toBe(true);
      expect(await inbox.store(inbox.prepare([inboxEvent(id, { provider: 'other' })], START))).toBe(true);
    });

    it("events sharing a payload share the first event's row; a later event alone has its own", async () => {
      const { inbox } = await make(3600);
      const id = uniqueId('shared');
      expect(await inbox.store(inbox.prepare([inboxEvent(id), inboxEvent(`${id}-b`)], START))).toBe(true);
      expect(await inbox.store(inbox.prepare([inboxEvent(id), inboxEvent(`${id}-c`)], START))).toBe(false);
      expect(await inbox.store(inbox.prepare([inboxEvent(`${id}-b`)], START))).toBe(true);
    });

    it('a row past its TTL counts as absent, though nothing has deleted it', async () => {
      const { inbox, storedRaw } = await make(DAY_MS / 1000);
      const id = uniqueId('ttl');
      expect(await inbox.store(inbox.prepare([inboxEvent(id, { raw: '{"old":1}' })], START))).toBe(true);
      expect(await inbox.store(inbox.prepare([inboxEvent(id)], START + DAY_MS - 1_000))).toBe(false);
      expect(await inbox.store(inbox.prepare([inboxEvent(id, { raw: '{"new":1}' })], START + DAY_MS + 1_000))).toBe(
        true,
      );
      expect(await storedRaw(`contract#${id}`)).toBe('{"new":1}');
    });

    it('prepare refuses what could never be stored, even compressed, and writes nothing', async () => {
      const { inbox, storedRaw } = await make(3600);
      const id = uniqueId('big');
      const incompressible = randomBytes(420 * 1024).toString('base64');
      expect(() => inbox.prepare([inboxEvent(id, { raw: incompressible })], START)).toThrow(PayloadTooLargeError);
      expect(await storedRaw(`contract#${id}`)).toBeUndefined();
    });

    it('prepare accepts a payload over the item limit that compresses under it', async () => {
      const { inbox, storedRaw } = await make(3600);
      const id = uniqueId('compressible');
      const raw = JSON.stringify({ id, padding: 'bounce '.repeat(100_000) });
      expect(await inbox.store(inbox.prepare([inboxEvent(id, { raw })], START))).toBe(true);
      expect(await storedRaw(`contract#${id}`)).toBe(raw);
    });

    it('prepare alone writes nothing', async () => {
      const { inbox, storedRaw } = await make(3600);
      const id = uniqueId('prepared');
      inbox.prepare([inboxEvent(id)], START);
      expect(await storedRaw(`contract#${id}`)).toBeUndefined();
    });

    it('a failed store throws TransientError and leaves no row, so a retry stores it', async () => {
      const { inbox, storedRaw, failNextStore } = await make(3600);
      const event = inboxEvent(uniqueId('fail'));
      failNextStore();
      await expect(inbox.store(inbox.prepare([event], START))).rejects.toBeInstanceOf(TransientError);
      expect(await storedRaw(`contract#${event.eventId}`)).toBeUndefined();
      expect(await inbox.store(inbox.prepare([event], START))).toBe(true);
    });
  });
}
