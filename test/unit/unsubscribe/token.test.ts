import { describe, expect, it } from 'vitest';
import {
  deriveTokenKeys,
  issueToken,
  maxAgeDaysFromSettings,
  verifyToken,
} from '../../../lambdas/core/unsubscribe/token.js';

const SECRET_A = 'a'.repeat(16) + 'secret-number-one-0123456789';
const SECRET_B = 'b'.repeat(16) + 'secret-number-two-0123456789';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const DAY = 86_400_000;
const EMAIL = 'jane.doe@example.com';
const LONG_EMAIL = `${'x'.repeat(60 - '@example.com'.length)}@example.com`;

describe('unsubscribe tokens', () => {
  const keys = deriveTokenKeys([SECRET_A]);

  it('round-trips the address, the topic, the issue time and the key id', () => {
    const token = issueToken({ email: ' Jane.Doe@Example.com ', topic: 'newsletter' }, keys, NOW + 999);
    const result = verifyToken(token, keys, NOW + DAY);
    expect(result).toEqual({
      ok: true,
      claims: { email: EMAIL, topic: 'newsletter', issuedAt: NOW, keyId: keys[0]!.id.toString('hex') },
    });
  });

  it('round-trips a global unsubscribe (`*`)', () => {
    const result = verifyToken(issueToken({ email: EMAIL, topic: '*' }, keys, NOW), keys, NOW);
    expect(result.ok && result.claims.topic).toBe('*');
  });

  it('is URL-safe and under 200 characters for a 60-character address', () => {
    expect(LONG_EMAIL).toHaveLength(60);
    const token = issueToken({ email: LONG_EMAIL, topic: 'newsletter' }, keys, NOW);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.length).toBeLessThan(200);
    expect(encodeURIComponent(token)).toBe(token);
  });

  it('differs on every issue (random nonce), and both verify', () => {
    const a = issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW);
    const b = issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW);
    expect(a).not.toBe(b);
    expect(verifyToken(a, keys, NOW).ok && verifyToken(b, keys, NOW).ok).toBe(true);
  });

  it('fails when any single byte is changed, whichever byte it is', () => {
    const token = issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW);
    const bytes = Buffer.from(token, 'base64url');
    let checked = 0;
    for (let i = 0; i < bytes.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const tampered = Buffer.from(bytes);
        tampered[i]! ^= mask;
        const result = verifyToken(tampered.toString('base64url'), keys, NOW);
        expect(result.ok, `byte ${i} ^ ${mask}`).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe(bytes.length * 3);
  });

  it('fails when truncated, extended or re-spelled', () => {
    const token = issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW);
    expect(verifyToken(token.slice(0, -1), keys, NOW).ok).toBe(false);
    expect(verifyToken(`${token}A`, keys, NOW).ok).toBe(false);
    expect(verifyToken(`${token}=`, keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyToken(`${token.slice(0, 10)}+${token.slice(11)}`, keys, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verifyToken('', keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyToken('x'.repeat(5000), keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a token whose key id is unknown', () => {
    const token = issueToken({ email: EMAIL, topic: 'newsletter' }, deriveTokenKeys([SECRET_B]), NOW);
    expect(verifyToken(token, keys, NOW)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it('refuses a token forged under the right key id with another key', () => {
    const [real] = deriveTokenKeys([SECRET_A]);
    const [other] = deriveTokenKeys([SECRET_B]);
    const forged = issueToken({ email: EMAIL, topic: 'newsletter' }, [{ id: real!.id, key: other!.key }], NOW);
    expect(verifyToken(forged, keys, NOW)).toEqual({ ok: false, reason: 'forged' });
  });

  it('rotation: the first secret issues, every secret verifies, a dropped secret no longer does', () => {
    const old = issueToken({ email: EMAIL, topic: 'newsletter' }, deriveTokenKeys([SECRET_A]), NOW);
    const rotated = deriveTokenKeys([SECRET_B, SECRET_A]);
    expect(verifyToken(old, rotated, NOW).ok).toBe(true);
    const fresh = issueToken({ email: EMAIL, topic: 'newsletter' }, rotated, NOW);
    expect(Buffer.from(fresh, 'base64url').subarray(1, 3)).toEqual(rotated[0]!.id);
    expect(verifyToken(fresh, deriveTokenKeys([SECRET_B]), NOW).ok).toBe(true);
    expect(verifyToken(fresh, keys, NOW)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(verifyToken(old, deriveTokenKeys([SECRET_B]), NOW)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it('enforces the maximum age (default 400 days) and refuses tokens from the future', () => {
    const token = issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW);
    expect(verifyToken(token, keys, NOW + 400 * DAY).ok).toBe(true);
    expect(verifyToken(token, keys, NOW + 400 * DAY + 1000)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyToken(token, keys, NOW + 31 * DAY, 30)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyToken(token, keys, NOW + 29 * DAY, 30).ok).toBe(true);
    expect(verifyToken(token, keys, NOW - 2 * 3600_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('does not reveal the address or any part of it', () => {
    const email = 'johnathan.smithers@examplecorp.org';
    const token = issueToken({ email, topic: 'newsletter' }, keys, NOW);
    const decoded = Buffer.from(token, 'base64url').toString('latin1').toLowerCase();
    for (const part of [email, 'johnathan', 'smithers', 'examplecorp', 'examplecorp.org', 'newsletter']) {
      expect(token.toLowerCase()).not.toContain(part);
      expect(decoded).not.toContain(part);
      expect(token).not.toContain(Buffer.from(part).toString('base64url').slice(0, 8));
    }
  });

  it('refuses weak secrets, bad topics and bad addresses at issue time', () => {
    expect(() => deriveTokenKeys(['short'])).toThrow(/at least 32/);
    expect(() => deriveTokenKeys([])).toThrow(/empty/);
    expect(() => issueToken({ email: EMAIL, topic: 'bad topic' }, keys, NOW)).toThrow(/topic/);
    expect(() => issueToken({ email: EMAIL, topic: '' }, keys, NOW)).toThrow(/topic/);
    expect(() => issueToken({ email: 'not-an-address', topic: 'newsletter' }, keys, NOW)).toThrow(/email address/);
  });

  it('reads UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS strictly', () => {
    expect(maxAgeDaysFromSettings({})).toBe(400);
    expect(maxAgeDaysFromSettings({ UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: '30' })).toBe(30);
    expect(maxAgeDaysFromSettings({ UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: ' 0.5 ' })).toBe(0.5);
    expect(() => maxAgeDaysFromSettings({ UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: '0' })).toThrow(
      'UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS must be a positive number of days, got "0"',
    );
    expect(() => maxAgeDaysFromSettings({ UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: 'soon' })).toThrow(
      /^UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS must be/,
    );
    // The one number parser's syntax: plain decimals only (before, anything Number() read passed).
    for (const raw of ['1e3', '0x10', '+30', '.5']) {
      expect(() => maxAgeDaysFromSettings({ UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: raw })).toThrow(
        /^UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS must be/,
      );
    }
  });
});

describe('nonces', () => {
  it('never repeat across many tokens (the pool is refilled, each slice used once)', () => {
    const keys = deriveTokenKeys([SECRET_A]);
    const nonces = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      nonces.add(
        Buffer.from(issueToken({ email: EMAIL, topic: 'n' }, keys, NOW), 'base64url')
          .subarray(7, 19)
          .toString('hex'),
      );
    }
    expect(nonces.size).toBe(1000);
  });
});
