import { describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { UnsubscribeEndpoint, type UnsubscribeHttpRequest } from '../../../lambdas/core/unsubscribe/endpoint.js';
import { unsubscribeEventId } from '../../../lambdas/core/unsubscribe/provider.js';
import { deriveTokenKeys, issueToken } from '../../../lambdas/core/unsubscribe/token.js';
import { unsubscribeProvider } from './support.js';

const SECRET = 'endpoint-test-secret-0123456789abcdefgh';
const NOW = Date.UTC(2026, 5, 1);
const keys = deriveTokenKeys([SECRET]);
const topicToken = issueToken({ email: 'jane@example.com', topic: 'newsletter' }, keys, NOW - 1000);
const globalToken = issueToken({ email: 'jane@example.com', topic: '*' }, keys, NOW - 1000);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const quietLog = { info() {}, warn() {}, error() {} };

/** The real provider behind a recording stand-in for the edge's admission. */
function setup(options: { secrets?: string[] | Error; edgeStatus?: number; settings?: Record<string, string> } = {}) {
  const received: WebhookRequest[] = [];
  const events: unknown[] = [];
  const provider = unsubscribeProvider(SECRET, NOW);
  const endpoint = new UnsubscribeEndpoint({
    edge: {
      async receive(name, request) {
        expect(name).toBe('unsubscribe');
        received.push(request);
        if (options.edgeStatus && options.edgeStatus !== 200)
          return { status: options.edgeStatus, body: { error: 'x' } };
        events.push(...(await provider.receive(request)).events);
        return { status: 200, body: { ok: true } };
      },
    },
    secrets: {
      async credentials(p) {
        expect(p.credentialsVariable).toBe('UNSUBSCRIBE_SECRETS');
        if (options.secrets instanceof Error) throw options.secrets;
        return options.secrets ?? [SECRET];
      },
    },
    now: () => NOW,
    settings: options.settings ?? { TOPIC_LABELS: 'newsletter=Weekly newsletter' },
    log: quietLog,
  });
  const call = (r: Partial<UnsubscribeHttpRequest>) =>
    endpoint.handle({ method: 'GET', token: topicToken, headers: {}, body: Buffer.alloc(0), ...r });
  return { call, received, events };
}

describe('GET /unsubscribe/{token}', () => {
  it('answers the confirmation page and writes nothing', async () => {
    const { call, received } = setup();
    const response = await call({ headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('Unsubscribe j•••@example.com from <em>Weekly newsletter</em>?');
    expect(response.headers).toMatchObject({
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
    });
    expect(response.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(received).toHaveLength(0);
  });

  it('answers a friendly 400 page for a forged, tampered, expired or unknown-key token, and JSON when asked', async () => {
    const { call, received } = setup();
    const bytes = Buffer.from(topicToken, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    const other = issueToken(
      { email: 'jane@example.com', topic: 'newsletter' },
      deriveTokenKeys(['another-secret-0123456789abcdefghijkl']),
      NOW,
    );
    const old = issueToken({ email: 'jane@example.com', topic: 'newsletter' }, keys, NOW - 401 * 86_400_000);
    for (const token of [bytes.toString('base64url'), other, 'garbage', old]) {
      for (const method of ['GET', 'POST']) {
        const html = await call({
          method,
          token,
          headers: { ...FORM, accept: 'text/html' },
          body: Buffer.from('List-Unsubscribe=One-Click'),
        });
        expect(html.status).toBe(400);
        expect(html.body).toMatch(/<h1>This unsubscribe link (does not work|has expired)<\/h1>/);
        const json = await call({ method, token, headers: { accept: 'application/json' } });
        expect(json.status).toBe(400);
        expect(JSON.parse(json.body)).toEqual({ error: token === old ? 'expired_token' : 'invalid_token' });
        expect(json.headers['content-type']).toBe('application/json');
      }
    }
    expect(received).toHaveLength(0);
  });

  it('is 404 when no secret is configured and 503 when the secret cannot be read', async () => {
    expect((await setup({ secrets: [] }).call({})).status).toBe(404);
    expect((await setup({ secrets: new Error('throttled') }).call({})).status).toBe(503);
    expect((await setup({ secrets: ['too-short'] }).call({})).status).toBe(503);
  });
});

describe('POST /unsubscribe/{token}', () => {
  it('RFC 8058 one-click: 200, a short text body, no redirect, one unsubscribe event for the topic', async () => {
    const { call, events, received } = setup();
    const response = await call({ method: 'POST', headers: FORM, body: Buffer.from('List-Unsubscribe=One-Click') });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toBe('You are unsubscribed.\n');
    expect(events).toEqual([
      {
        provider: 'unsubscribe',
        eventId: unsubscribeEventId(topicToken, 'unsubscribe'),
        recipient: 'jane@example.com',
        kind: 'unsubscribe',
        topic: 'newsletter',
        occurredAt: NOW,
        detail: { providerEventType: 'one_click_unsubscribe' },
        raw: JSON.stringify({ token: topicToken, action: 'unsubscribe' }),
      },
    ]);
    expect(received[0]!.body.toString()).toBe(JSON.stringify({ token: topicToken, action: 'unsubscribe' }));
  });

  it('a global token unsubscribes with no topic, and cannot be resubscribed', async () => {
    const { call, events } = setup();
    expect(
      (
        await call({
          method: 'POST',
          token: globalToken,
          headers: FORM,
          body: Buffer.from('List-Unsubscribe=One-Click'),
        })
      ).status,
    ).toBe(200);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'unsubscribe' });
    expect(events[0]).not.toHaveProperty('topic');
    expect(
      (await call({ method: 'POST', token: globalToken, headers: FORM, body: Buffer.from('action=resubscribe') }))
        .status,
    ).toBe(400);
    expect(events).toHaveLength(1);
  });

  it('the page buttons: confirmation with Resubscribe, then a `subscribe` event with another dedup key', async () => {
    const { call, events } = setup();
    const done = await call({
      method: 'POST',
      headers: { ...FORM, accept: 'text/html' },
      body: Buffer.from('List-Unsubscribe=One-Click'),
    });
    expect(done.body).toContain('<h1>You are unsubscribed</h1>');
    expect(done.body).toContain('>Resubscribe</button>');
    const again = await call({
      method: 'POST',
      headers: { ...FORM, accept: 'text/html' },
      body: Buffer.from('action=resubscribe'),
    });
    expect(again.status).toBe(200);
    expect(again.body).toContain('<h1>You are subscribed again</h1>');
    expect(events[1]).toMatchObject({
      kind: 'subscribe',
      topic: 'newsletter',
      eventId: unsubscribeEventId(topicToken, 'resubscribe'),
    });
    expect(unsubscribeEventId(topicToken, 'resubscribe')).not.toBe(unsubscribeEventId(topicToken, 'unsubscribe'));
  });

  it('refuses a body that is not a one-click or a resubscribe, and other methods, writing nothing', async () => {
    const { call, received } = setup();
    expect((await call({ method: 'POST', headers: FORM, body: Buffer.from('List-Unsubscribe=Maybe') })).status).toBe(
      400,
    );
    expect((await call({ method: 'POST', headers: FORM, body: Buffer.alloc(20_000, 'a') })).status).toBe(413);
    const put = await call({ method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST');
    expect(received).toHaveLength(0);
  });

  it('passes on a transient admission failure as 503, so the mailbox provider retries', async () => {
    const { call } = setup({ edgeStatus: 503 });
    const response = await call({
      method: 'POST',
      headers: { ...FORM, accept: 'application/json' },
      body: Buffer.from('List-Unsubscribe=One-Click'),
    });
    expect(response.status).toBe(503);
    expect(JSON.parse(response.body)).toEqual({ error: 'unavailable' });
  });
});

describe('the unsubscribe provider', () => {
  it('verifies the token itself: a request built around a bad token is refused', async () => {
    const provider = unsubscribeProvider(SECRET, NOW);
    await expect(
      provider.receive({ body: Buffer.from(JSON.stringify({ token: 'AAAA', action: 'unsubscribe' })), headers: {} }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(provider.receive({ body: Buffer.from('{"token":1}'), headers: {} })).rejects.toMatchObject({
      status: 400,
    });
    await expect(provider.receive({ body: Buffer.from('nope'), headers: {} })).rejects.toMatchObject({ status: 400 });
  });
});
