/**
 * End to end on the real local stack: a signed request → edge → inbox + queue → consumer → suppression
 * record, for every provider; then the same across a restart of the whole process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSuppressed } from '../../lambdas/adapters/is-suppressed.js';
import { PROVIDER_NAMES } from '../../lambdas/core/providers/index.js';
import { startTestStack, type TestStack } from './harness.js';

describe('end to end, fresh process', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  for (const provider of PROVIDER_NAMES) {
    it(`${provider}: a signed hard bounce suppresses the address`, async () => {
      const email = `bounce-${provider}@example.com`;
      const response = await stack.post(provider, stack.sign(provider, 'hard_bounce', email));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ ok: true, admitted: 1 });
      expect(await stack.record(email)).toBeUndefined(); // not applied until the consumer runs
      await stack.drain();
      const record = await stack.record(email);
      expect(record).toMatchObject({ email, status: 'suppressed', reason: 'hard_bounce' });
      expect(
        await isSuppressed(email.toUpperCase(), {
          client: stack.clients.doc,
          tableName: stack.config.suppressionTable,
        }),
      ).toBe(true);
    });

    it(`${provider}: a delivery to an address with no record writes nothing; after a soft bounce it is recorded`, async () => {
      const email = `ok-${provider}@example.com`;
      expect((await stack.post(provider, stack.sign(provider, 'delivered', email))).status).toBe(200);
      await stack.drain();
      expect(await stack.record(email)).toBeUndefined();
      expect(await isSuppressed(email, { client: stack.clients.doc, tableName: stack.config.suppressionTable })).toBe(
        false,
      );
      const now = Date.now();
      expect((await stack.post(provider, stack.sign(provider, 'soft_bounce', email, now - 60_000))).status).toBe(200);
      await stack.drain();
      expect((await stack.post(provider, stack.sign(provider, 'delivered', email, now))).status).toBe(200);
      await stack.drain();
      const record = await stack.record(email);
      expect(record).toMatchObject({ email, status: 'active' });
      expect(record!.lastDeliveredAt).toBeGreaterThan(now - 60_000);
    });
  }

  for (const provider of PROVIDER_NAMES) {
    it(`${provider}: a retried delivery leaves exactly one stored copy and one effect`, async () => {
      const email = `retried-${provider}@example.com`;
      const request = stack.sign(provider, 'soft_bounce', email);
      expect((await stack.post(provider, request)).body).toMatchObject({ admitted: 1, duplicates: 0 });
      expect((await stack.post(provider, request)).body).toMatchObject({ admitted: 0, duplicates: 1 });
      await stack.drain();
      expect((await stack.post(provider, request)).body).toMatchObject({ admitted: 0, duplicates: 1 });
      await stack.drain();
      expect((await stack.inboxRows()).filter((r) => r.event.recipient === email)).toHaveLength(1);
      expect(Object.keys((await stack.record(email))!.softBounces)).toHaveLength(1);
    });
  }

  it('stores each row as one compressed payload under 1 KB that decodes to the exact raw bytes and events', async () => {
    const rows = await stack.inboxRows();
    const ses = rows.find((r) => r.pk.startsWith('ses#'))!;
    expect(Object.keys(ses.item).sort()).toEqual(['body', 'expiresAt', 'pk', 'v']);
    expect(ses.item.body).toBeInstanceOf(Uint8Array);
    expect(ses.item.body.byteLength).toBeLessThan(1024);
    expect(JSON.parse(ses.raw!)).toMatchObject({ Type: 'Notification' });
    expect(ses.events[0]).toMatchObject({ provider: 'ses', kind: expect.any(String) });
    expect(ses.events[0]).not.toHaveProperty('raw');
  });

  it('leaves nothing queued once drained, and rows carry no "applied" mark to update', async () => {
    const rows = await stack.inboxRows();
    expect(rows.length).toBe(PROVIDER_NAMES.length * 5);
    for (const row of rows) expect(row.status).toBe('queued');
    expect(await stack.queueDepth()).toEqual({ visible: 0, inFlight: 0, dlq: 0 });
  });

  it('a late delivered after a complaint leaves the address suppressed (out of order)', async () => {
    const email = 'late@example.com';
    const now = Date.now();
    await stack.post('sendgrid', stack.sign('sendgrid', 'complaint', email, now));
    await stack.drain();
    // The delivery happened before the complaint but arrives after it, and a later-dated one too.
    await stack.post('sendgrid', stack.sign('sendgrid', 'delivered', email, now - 60_000));
    await stack.post('mailgun', stack.sign('mailgun', 'delivered', email, now + 1_000));
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
  });
});

describe('end to end, restarted process', () => {
  it('an event stored before a restart is applied after it, and suppression survives the restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-restart-'));
    try {
      const first = await startTestStack({ dataDir, persist: true });
      const applied = 'applied-before@example.com';
      const stored = 'stored-before@example.com';
      expect((await first.post('ses', first.sign('ses', 'complaint', applied))).status).toBe(200);
      await first.drain();
      // Stored and enqueued, but the process stops before the consumer sees it: the embedded
      // queue is in memory, so only the inbox knows about this event now.
      expect((await first.post('ses', first.sign('ses', 'hard_bounce', stored))).status).toBe(200);
      await first.stop();

      const second = await startTestStack({ dataDir, persist: true });
      try {
        expect(await second.record(applied)).toMatchObject({ status: 'suppressed', reason: 'complaint' });
        expect(await second.record(stored)).toBeUndefined();
        await second.drain();
        expect(await second.record(stored)).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
        // Same demo credentials after the restart: a new signed event is still accepted.
        expect((await second.post('ses', second.sign('ses', 'delivered', 'new@example.com'))).status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
