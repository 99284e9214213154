import { describe, expect, it } from 'vitest';
import { issueUnsubscribeToken, unsubscribeHeaders, unsubscribeUrl } from '../../../lambdas/client/index.js';
import { deriveTokenKeys, parseSecretList, verifyToken } from '../../../lambdas/core/unsubscribe/token.js';

const SECRET = 'client-test-secret-0123456789abcdef0123';
const OLD = 'client-test-secret-old-0123456789abcdef';
const env = { UNSUBSCRIBE_SECRETS: `${SECRET},${OLD}`, UNSUBSCRIBE_BASE_URL: 'https://unsub.example.org/' };

describe('the client: tokens, URLs and RFC 8058 headers', () => {
  it('issues a token with the first secret of UNSUBSCRIBE_SECRETS', () => {
    const token = issueUnsubscribeToken({ email: 'Someone@Example.com', topic: 'newsletter', env });
    const result = verifyToken(token, deriveTokenKeys([SECRET]), Date.now());
    expect(result).toMatchObject({ ok: true, claims: { email: 'someone@example.com', topic: 'newsletter' } });
  });

  it('builds the headers: an https link in angle brackets and the One-Click marker', () => {
    const headers = unsubscribeHeaders({ email: 'someone@example.com', topic: '*', env });
    expect(Object.keys(headers)).toEqual(['List-Unsubscribe', 'List-Unsubscribe-Post']);
    expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const match = /^<https:\/\/unsub\.example\.org\/unsubscribe\/([A-Za-z0-9_-]+)>$/.exec(headers['List-Unsubscribe']);
    expect(match).not.toBeNull();
    expect(verifyToken(match![1]!, deriveTokenKeys([SECRET]), Date.now())).toMatchObject({
      ok: true,
      claims: { topic: '*' },
    });
  });

  it('takes secrets and base URL from options over the environment', () => {
    const url = unsubscribeUrl({
      email: 'a@example.com',
      topic: 'news',
      secrets: [OLD],
      baseUrl: 'http://localhost:4100',
      env: {},
    });
    expect(url).toMatch(/^http:\/\/localhost:4100\/unsubscribe\/[A-Za-z0-9_-]+$/);
    const token = url.split('/').pop()!;
    expect(verifyToken(token, deriveTokenKeys([OLD]), Date.now()).ok).toBe(true);
    expect(verifyToken(token, deriveTokenKeys([SECRET]), Date.now())).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it('refuses a plain-http link in headers unless it points at this machine', () => {
    expect(() =>
      unsubscribeHeaders({ email: 'a@example.com', topic: 'news', baseUrl: 'http://mail.example.org', env }),
    ).toThrow(/https/);
    expect(
      unsubscribeHeaders({ email: 'a@example.com', topic: 'news', baseUrl: 'http://127.0.0.1:3000', env })[
        'List-Unsubscribe'
      ],
    ).toMatch(/^<http:\/\/127\.0\.0\.1:3000\/unsubscribe\//);
  });

  it('fails clearly without a secret or a base URL, or with a base URL carrying a query', () => {
    expect(() => issueUnsubscribeToken({ email: 'a@example.com', topic: 'news', env: {} })).toThrow(
      /UNSUBSCRIBE_SECRETS/,
    );
    expect(() =>
      unsubscribeUrl({ email: 'a@example.com', topic: 'news', env: { UNSUBSCRIBE_SECRETS: SECRET } }),
    ).toThrow(/UNSUBSCRIBE_BASE_URL/);
    expect(() =>
      unsubscribeUrl({ email: 'a@example.com', topic: 'news', baseUrl: 'https://x.example/?a=1', env }),
    ).toThrow(/query/);
  });

  it('parses secret lists as JSON arrays or comma-separated strings', () => {
    expect(parseSecretList(' a , b ,, ')).toEqual(['a', 'b']);
    expect(parseSecretList('["x", " y "]')).toEqual(['x', 'y']);
    expect(parseSecretList(undefined)).toEqual([]);
    expect(() => parseSecretList('[1]')).toThrow(/JSON array/);
  });
});
