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
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, { ttlSeconds, now: () => start });
    expect(await inbox.admit(event, start)).toEqual({ admitted: true, pk: 'generic#ttl-1' });
    expect(await inbox.admit(event, start + DAY_MS - 1_000)).toEqual({ admitted: false, pk: 'generic#ttl-1', status: 'pending' });
    await inbox.markApplied('generic#ttl-1', start + 2_000);
    expect(await inbox.admit(event, start + 3_000)).toEqual({ admitted: false, pk: 'generic#ttl-1', status: 'applied' });
    expect(await inbox.admit(event, start + DAY_MS + 1_000)).toEqual({ admitted: true, pk: 'generic#ttl-1' });
    const row = await inbox.get('generic#ttl-1');
    expect(row).toMatchObject({ status: 'pending', receivedAt: start + DAY_MS + 1_000 });
    expect(row).not.toHaveProperty('appliedAt');
  });

  it('the sweeper index finds only unapplied rows whose re-send time has come, across shards, up to the limit', async () => {
    const inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, { ttlSeconds: 3600, resendAfterMs: 4_000, now: () => 0 });
    const make = (id: string): NormalizedEvent => ({
      provider: 'sweep',
      eventId: id,
      recipient: `${id}@example.com`,
      kind: 'hard_bounce',
      occurredAt: 1,
      detail: {},
      raw: '{}',
    });
    const sweepIds = (rows: { event: { eventId: string } }[]) =>
      rows.map((m) => m.event.eventId).filter((id) => id.startsWith('p') || id === 'recent').sort();
    for (let i = 0; i < 20; i++) await inbox.admit(make(`p${i}`), 1_000 + i); // due at 5,000 + i
    await inbox.markApplied('sweep#p4', 5_000);
    await inbox.scheduleResend('sweep#p5', 1, 60_000); // re-sent once already: due again later
    await inbox.scheduleResend('sweep#p6', 10, null); // given up on: out of the index
    await inbox.scheduleResend('sweep#p4', 1, 6_000); // applied meanwhile: must not come back
    await inbox.admit(make('recent'), 9_000);
    const expected = Array.from({ length: 20 }, (_, i) => `p${i}`).filter((id) => !['p4', 'p5', 'p6'].includes(id)).sort();

    expect(sweepIds(await inbox.listDue(4_999, 100))).toEqual([]);
    expect(sweepIds(await inbox.listDue(5_100, 100))).toEqual(expected);
    expect((await inbox.listDue(5_100, 5)).length).toBe(5);
    const at60s = await inbox.listDue(60_000, 100);
    expect(sweepIds(at60s)).toEqual([...expected, 'p5', 'recent'].sort());
    expect(at60s.find((r) => r.event.eventId === 'p5')).toMatchObject({ resends: 1 });
    expect(at60s.find((r) => r.event.eventId === 'p0')).toMatchObject({ resends: 0 });

    expect(await inbox.get('sweep#p4')).toMatchObject({ status: 'applied' });
    expect(await inbox.get('sweep#p4')).not.toHaveProperty('resendAt');
    expect(await inbox.get('sweep#p6')).toMatchObject({ status: 'pending', resends: 10, abandonedAt: 0 });
    expect(await inbox.get('sweep#p6')).not.toHaveProperty('pendingShard');
  });

});
