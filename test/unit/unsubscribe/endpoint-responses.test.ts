/**
 * The endpoint's exact answers in each format (HTML, JSON, text), its logs, the body-size edge, and
 * how an admission failure from the edge is passed on.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { UnsubscribeEndpoint, type UnsubscribeHttpRequest } from '../../../lambdas/core/unsubscribe/endpoint.js';
import { MAX_FORM_BYTES } from '../../../lambdas/core/unsubscribe/form.js';
import { deriveTokenKeys, issueToken } from '../../../lambdas/core/unsubscribe/token.js';
import { recordingLog } from '../support/log.js';
import { unsubscribeProvider } from './support.js';

const SECRET = 'endpoint-responses-secret-0123456789abcd';
const NOW = Date.UTC(2026, 5, 1);
const keys = deriveTokenKeys([SECRET]);
const token = issueToken({ email: 'jane@example.com', topic: 'newsletter' }, keys, NOW - 1000);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ONE_CLICK = Buffer.from('List-Unsubscribe=One-Click');

function setup(options: { secrets?: string[] | Error; edgeStatus?: number } = {}) {
  const { log, lines } = recordingLog();
  const received: WebhookRequest[] = [];
  const provider = unsubscribeProvider(SECRET, NOW);
  const endpoint = new UnsubscribeEndpoint({
    edge: {
      async receive(_name, request) {
        received.push(request);
        if (options.edgeStatus !== undefined) return { status: options.edgeStatus, body: { error: 'x' } };
        await provider.receive(request);
        return { status: 200, body: { ok: true } };
      },
    },
    secrets: {
      async credentials() {
        if (options.secrets instanceof Error) throw options.secrets;
        return options.secrets ?? [SECRET];
      },
    },
    now: () => NOW,
    settings: {},
    log,
  });
  const call = (r: Partial<UnsubscribeHttpRequest>) =>
    endpoint.handle({ method: 'GET', token, headers: {}, body: Buffer.alloc(0), ...r });
  return { call, lines, received };
}

describe('GET answers', () => {
  it('JSON when asked: the confirm action only', async () => {
    const response = await setup().call({ headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.body).toBe('{"action":"confirm"}');
  });

  it('HTML without any Accept header (a link scanner, a mail preview)', async () => {
    const response = await setup().call({ method: 'get' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<h1>Unsubscribe j•••@example.com from <em>newsletter</em>?</h1>');
  });
});

describe('POST answers', () => {
  it('JSON for an unsubscribe and a resubscribe', async () => {
    const { call } = setup();
    const json = { ...FORM, accept: 'application/json' };
    const unsubscribed = await call({ method: 'POST', headers: json, body: ONE_CLICK });
    expect([unsubscribed.status, unsubscribed.body]).toEqual([200, '{"ok":true,"action":"unsubscribe"}']);
    const resubscribed = await call({ method: 'POST', headers: json, body: Buffer.from('action=resubscribe') });
    expect([resubscribed.status, resubscribed.body]).toEqual([200, '{"ok":true,"action":"resubscribe"}']);
  });

  it('a short text for a resubscribe without Accept', async () => {
    const response = await setup().call({ method: 'POST', headers: FORM, body: Buffer.from('action=resubscribe') });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('You are subscribed again.\n');
  });

  it('a problem as text without Accept: the heading and the advice on one line', async () => {
    const response = await setup().call({ method: 'POST', headers: FORM, body: Buffer.from('List-Unsubscribe=Maybe') });
    expect(response.status).toBe(400);
    expect(response.body).toBe(
      'This request was not understood. Open the unsubscribe link again and use the button on the page.\n',
    );
  });

  it('accepts a body of exactly MAX_FORM_BYTES, and answers 413 for one byte more', async () => {
    const { call, received } = setup();
    const exact = Buffer.concat([
      ONE_CLICK,
      Buffer.from('&pad='),
      Buffer.alloc(MAX_FORM_BYTES - ONE_CLICK.length - 5, 'a'),
    ]);
    expect(exact).toHaveLength(MAX_FORM_BYTES);
    expect((await call({ method: 'POST', headers: FORM, body: exact })).status).toBe(200);
    const over = await call({
      method: 'POST',
      headers: { accept: 'application/json' },
      body: Buffer.concat([exact, Buffer.from('a')]),
    });
    expect([over.status, over.body]).toEqual([413, '{"error":"bad_request"}']);
    expect(received).toHaveLength(1);
  });

  it('reads the body by its content type: multipart is read, JSON is refused', async () => {
    const { call, received } = setup();
    const multipart = Buffer.from(
      '--b\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b--\r\n',
    );
    expect(
      (await call({ method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b' }, body: multipart }))
        .status,
    ).toBe(200);
    expect(
      (await call({ method: 'POST', headers: { 'content-type': 'application/json' }, body: ONE_CLICK })).status,
    ).toBe(400);
    expect(received).toHaveLength(1);
  });
});

describe('admission failures from the edge', () => {
  const post = (edgeStatus: number) =>
    setup({ edgeStatus }).call({ method: 'POST', headers: { ...FORM, accept: 'application/json' }, body: ONE_CLICK });

  it('any 5xx is a 503 "unavailable", so the mailbox provider retries', async () => {
    for (const status of [500, 503]) {
      const response = await post(status);
      expect([response.status, response.body], String(status)).toEqual([503, '{"error":"unavailable"}']);
    }
  });

  it('a 4xx is a 400 "invalid_token"', async () => {
    for (const status of [400, 401, 499]) {
      const response = await post(status);
      expect([response.status, response.body], String(status)).toEqual([400, '{"error":"invalid_token"}']);
    }
  });
});

describe('logs', () => {
  it('a rejected token is a warning with its reason', async () => {
    const { call, lines } = setup();
    await call({ token: 'garbage' });
    expect(lines).toEqual([['warn', 'unsubscribe token rejected', { reason: 'malformed' }]]);
  });

  it('secrets that cannot be read are an error with the cause', async () => {
    const { call, lines } = setup({ secrets: new Error('throttled') });
    expect((await call({})).status).toBe(503);
    expect(lines).toEqual([['error', 'could not load unsubscribe secrets', { error: 'Error: throttled' }]]);
  });

  it('a secret too short to use is a configuration error naming the provider, not the secret', async () => {
    const { call, lines } = setup({ secrets: ['too-short'] });
    const response = await call({ headers: { accept: 'application/json' } });
    expect([response.status, response.body]).toEqual([503, '{"error":"unavailable"}']);
    expect(lines).toEqual([
      [
        'error',
        'configuration_error',
        { provider: 'unsubscribe', error: 'unsubscribe secrets must be at least 32 characters' },
      ],
    ]);
    expect(JSON.stringify(lines)).not.toContain('too-short');
  });
});
