/**
 * The DynamoDB conditions themselves, on dynalite: dynalite never deletes expired TTL rows (and DynamoDB
 * may take 48 h to), so every condition must treat an expired item as absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoNonceStore } from '../../lambdas/adapters/dynamodb-nonces.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import { startTestStack, type TestStack } from './harness.js';

const DAY_MS = 86_400_000;

describe('DynamoDB conditions treat expired rows as absent', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  it('nonce claims: free → claimed; same body → allowed (retry); other body → refused; after expiry → free again', async () => {
    let now = Date.UTC(2026, 0, 1);
    const nonces = new DynamoNonceStore(stack.clients.doc, stack.config.inboxTable, () => now);
    const expires = now + 10 * 60_000;
    expect(await nonces.claim('mailgun', 'tok-1', 'fp-a', expires)).toBe(true);
    expect(await nonces.claim('mailgun', 'tok-1', 'fp-a', expires)).toBe(true);
    expect(await nonces.claim('mailgun', 'tok-1', 'fp-b', expires)).toBe(false);
    expect(await nonces.claim('other', 'tok-1', 'fp-b', expires)).toBe(true); // namespaces do not collide
    now = expires + 1_000; // past the claim's expiry, row still physically present
    expect(await nonces.claim('mailgun', 'tok-1', 'fp-b', now + 10 * 60_000)).toBe(true);
    expect(await nonces.claim('mailgun', 'tok-1', 'fp-a', now + 10 * 60_000)).toBe(false);
  });

  it('inbox admission: a duplicate inside the TTL is refused; a row past its TTL is admitted afresh', async () => {
    const ttlSeconds = DAY_MS / 1000;
    const event: NormalizedEvent = {
      provider: 'generic',
      eventId: 'ttl-1',
      recipient: 'ttl@example.com',
      kind: 'complaint',
      occurredAt: 1,
      detail: {},
      raw: '{"id":"ttl-1"}',
    };
    const start = Date.UTC(2026, 0, 1);
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, ttlSeconds, () => start);
    expect(await inbox.admit(event, start)).toEqual({ admitted: true, pk: 'generic#ttl-1' });
    expect(await inbox.admit(event, start + DAY_MS - 1_000)).toEqual({ admitted: false, pk: 'generic#ttl-1', status: 'pending' });
    await inbox.markEnqueued('generic#ttl-1');
    expect(await inbox.admit(event, start + 1_000)).toMatchObject({ admitted: false, status: 'enqueued' });
    expect(await inbox.admit(event, start + DAY_MS + 1_000)).toEqual({ admitted: true, pk: 'generic#ttl-1' });
    const row = await inbox.get('generic#ttl-1');
    expect(row).toMatchObject({ status: 'pending', receivedAt: start + DAY_MS + 1_000 });
  });

  it('the sweeper index finds only rows still pending and old enough, across shards, up to the limit', async () => {
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, 3600, () => 0);
    const make = (id: string): NormalizedEvent => ({
      provider: 'sweep',
      eventId: id,
      recipient: `${id}@example.com`,
      kind: 'hard_bounce',
      occurredAt: 1,
      detail: {},
      raw: '{}',
    });
    for (let i = 0; i < 20; i++) await inbox.admit(make(`p${i}`), 1_000 + i);
    await inbox.markEnqueued('sweep#p3');
    await inbox.markApplied('sweep#p4', 5_000);
    await inbox.admit(make('recent'), 9_000);
    const pending = await inbox.listPending(5_000, 100);
    const ids = pending.map((m) => m.event.eventId).filter((id) => id.startsWith('p') || id === 'recent');
    expect(ids.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`).filter((id) => id !== 'p3' && id !== 'p4').sort());
    expect((await inbox.listPending(5_000, 5)).length).toBe(5);
  });
});
