/** The Postmark demo signer against the provider: every actionable kind round-trips. */
import { describe, expect, it } from 'vitest';
import type { ActionableKind } from '../../../lambdas/core/event.js';
import { postmarkProvider } from '../../../lambdas/core/providers/postmark/index.js';
import { postmarkDemo } from '../../../lib/demo/postmark.js';
import { NOW_MS, providerDeps } from '../support/provider.js';

const KINDS: ActionableKind[] = ['delivered', 'soft_bounce', 'hard_bounce', 'complaint', 'unsubscribe'];

describe('postmarkDemo', () => {
  const credentials = postmarkDemo.createCredentials();
  const provider = postmarkProvider.create(
    providerDeps([credentials.credential], { settings: { POSTMARK_ALLOWED_IPS: '127.0.0.1' } }),
  );

  it('creates a fresh user:password each time, usable as the credential and the signing secret', () => {
    const other = postmarkDemo.createCredentials();
    expect(credentials.credential).toMatch(/^[A-Za-z0-9-]+:[A-Za-z0-9_-]{32}$/);
    expect(credentials.signingSecret).toBe(credentials.credential);
    expect(other.credential).not.toBe(credentials.credential);
  });

  it.each(KINDS)('signs a %s request the provider accepts as that kind', async (kind) => {
    const signed = postmarkDemo.sign(kind, 'demo.user@example.com', credentials, NOW_MS);
    expect(Object.keys(signed.headers).every((name) => name === name.toLowerCase())).toBe(true);
    const { events } = await provider.receive({
      body: Buffer.from(signed.body),
      headers: signed.headers,
      sourceIp: '127.0.0.1',
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind, recipient: 'demo.user@example.com', raw: signed.body });
    expect(events[0]!.occurredAt).toBeLessThanOrEqual(NOW_MS);
    expect(events[0]!.occurredAt).toBeGreaterThan(NOW_MS - 60_000);
  });

  it('gives every demo event its own eventId', async () => {
    const ids = new Set<string>();
    for (const kind of KINDS) {
      for (let i = 0; i < 3; i++) {
        const signed = postmarkDemo.sign(kind, 'demo.user@example.com', credentials, NOW_MS);
        const { events } = await provider.receive({
          body: Buffer.from(signed.body),
          headers: signed.headers,
          sourceIp: '127.0.0.1',
        });
        ids.add(events[0]!.eventId);
      }
    }
    expect(ids.size).toBe(KINDS.length * 3);
  });

  it('is refused with another demo credential', async () => {
    const signed = postmarkDemo.sign('hard_bounce', 'demo.user@example.com', postmarkDemo.createCredentials(), NOW_MS);
    await expect(
      provider.receive({ body: Buffer.from(signed.body), headers: signed.headers, sourceIp: '127.0.0.1' }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });
});
