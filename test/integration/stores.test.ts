/**
 * The DynamoDB conditions themselves, on dynalite: dynalite never deletes expired TTL rows (and DynamoDB
 * may take 48 h to), so every condition must treat an expired item as absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { PayloadTooLargeError } from '../../lambdas/core/errors.js';
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
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, { ttlSeconds });
    expect(await inbox.store(inbox.prepare([event], start))).toBe(true);
    expect(await inbox.store(inbox.prepare([event], start + DAY_MS - 1_000))).toBe(false);
    expect(await inbox.store(inbox.prepare([event], start + DAY_MS + 1_000))).toBe(true);
    const row = await inbox.get('generic#ttl-1');
    expect(row).toMatchObject({ status: 'queued', expiresAt: Math.floor((start + DAY_MS + 1_000) / 1000) + ttlSeconds, raw: '{"id":"ttl-1"}' });
    const { raw: _raw, ...stored } = event;
    expect(row!.events).toEqual([stored]);
  });

  it('an event too large to store even compressed is refused before any write', () => {
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, { ttlSeconds: 60 });
    const incompressible = randomBytes(420 * 1024).toString('base64');
    const event: NormalizedEvent = { provider: 'generic', eventId: 'big', recipient: 'big@example.com', kind: 'complaint', occurredAt: 1, detail: {}, raw: incompressible };
    expect(() => inbox.prepare([event], Date.now())).toThrow(PayloadTooLargeError);
  });
});
