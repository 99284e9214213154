import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveTokenKeys, verifyToken } from '../../../lambdas/core/unsubscribe/token.js';
import { parseUnsubscribeLinkArgs, unsubscribeLink } from '../../../lib/cli/unsubscribe-link.js';

const SECRET = 'cli-unit-test-unsubscribe-secret-0123456789';
const OLD = 'cli-unit-test-unsubscribe-secret-old-abcdef';
const NOWHERE = join(tmpdir(), 'ratchet-no-such-data-dir');

describe('unsubscribe-link', () => {
  it('prints the URL alone, from UNSUBSCRIBE_SECRETS and UNSUBSCRIBE_BASE_URL', async () => {
    const lines: string[] = [];
    const env = {
      UNSUBSCRIBE_SECRETS: SECRET,
      UNSUBSCRIBE_BASE_URL: 'https://u.example.org',
      RATCHET_DATA_DIR: NOWHERE,
    };
    const url = await unsubscribeLink(
      'Someone@Example.com',
      { topic: 'newsletter' },
      { env, out: (l) => lines.push(l) },
    );
    expect(lines).toEqual([url]);
    const token = /^https:\/\/u\.example\.org\/unsubscribe\/([A-Za-z0-9_-]+)$/.exec(url)![1]!;
    expect(verifyToken(token, deriveTokenKeys([SECRET]), Date.now())).toMatchObject({
      ok: true,
      claims: { email: 'someone@example.com', topic: 'newsletter' },
    });
  });

  it('is global without --topic', async () => {
    const env = {
      UNSUBSCRIBE_SECRETS: SECRET,
      UNSUBSCRIBE_BASE_URL: 'https://u.example.org',
      RATCHET_DATA_DIR: NOWHERE,
    };
    const url = await unsubscribeLink('a@example.com', {}, { env, out: () => {} });
    expect(verifyToken(url.split('/').pop()!, deriveTokenKeys([SECRET]), Date.now())).toMatchObject({
      ok: true,
      claims: { topic: '*' },
    });
  });

  it('on AWS reads the secret <prefix>/unsubscribe (or UNSUBSCRIBE_SECRET_ARN) and signs with its first entry', async () => {
    const asked: string[] = [];
    const readSecret = async (id: string) => (asked.push(id), JSON.stringify([SECRET, OLD]));
    const base = { UNSUBSCRIBE_BASE_URL: 'https://u.example.org', RATCHET_TARGET: 'aws' };
    const url = await unsubscribeLink('a@example.com', {}, { env: base, out: () => {}, readSecret });
    await unsubscribeLink(
      'a@example.com',
      {},
      {
        env: { ...base, UNSUBSCRIBE_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' },
        out: () => {},
        readSecret,
      },
    );
    expect(asked).toEqual(['ratchet/unsubscribe', 'arn:aws:secretsmanager:eu-west-1:1:secret:x']);
    expect(verifyToken(url.split('/').pop()!, deriveTokenKeys([SECRET]), Date.now()).ok).toBe(true);
  });

  it('says what to set when there is no base URL or no key', async () => {
    await expect(
      unsubscribeLink(
        'a@example.com',
        {},
        { env: { UNSUBSCRIBE_SECRETS: SECRET, RATCHET_DATA_DIR: NOWHERE }, out: () => {} },
      ),
    ).rejects.toThrow(/UNSUBSCRIBE_BASE_URL/);
    const readSecret = async () => {
      throw new Error('AccessDenied');
    };
    await expect(
      unsubscribeLink(
        'a@example.com',
        {},
        { env: { UNSUBSCRIBE_BASE_URL: 'https://u.example.org', RATCHET_TARGET: 'aws' }, out: () => {}, readSecret },
      ),
    ).rejects.toThrow(/UNSUBSCRIBE_SECRETS.*AccessDenied/);
  });

  it('reads `<email> [--topic t]` when run on its own', () => {
    expect(parseUnsubscribeLinkArgs(['a@example.com'])).toEqual({ email: 'a@example.com', topic: undefined });
    expect(parseUnsubscribeLinkArgs(['a@example.com', '--topic', 'news'])).toEqual({
      email: 'a@example.com',
      topic: 'news',
    });
    expect(parseUnsubscribeLinkArgs(['--topic=news', 'a@example.com'])).toEqual({
      email: 'a@example.com',
      topic: 'news',
    });
    expect(() => parseUnsubscribeLinkArgs([])).toThrow(/usage/);
    expect(() => parseUnsubscribeLinkArgs(['a@example.com', '--topic'])).toThrow(/--topic/);
  });
});
