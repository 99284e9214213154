/**
 * The exact edges of token.ts: the wire format (a token in a mailbox must keep working after an
 * upgrade), each refusal's reason, the age limits to the second, the secret rules and the key cache.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretListFormatError } from '../../../lambdas/core/secret-list.js';
import {
  deriveTokenKeys,
  issueToken,
  parseSecretList,
  type TokenKey,
  verifyToken,
} from '../../../lambdas/core/unsubscribe/token.js';

const SECRET_A = 'a'.repeat(16) + 'secret-number-one-0123456789';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const EMAIL = 'jane.doe@example.com';
const keys = deriveTokenKeys([SECRET_A]);
const key = keys[0]!;

/** Issued by this code for SECRET_A at NOW; the layout is a public contract (links sit in mailboxes). */
const GOLDEN = 'AaP7aWjWwHwr6MimFKxxD-TwB1cqhHtjA-2ionhV53-WnCKeD4mkv4ZwVcbAVrcVWICxylnF8ICGtqluQkkAnnRI';

/** A token sealed with the real key over any plaintext: what only a holder of the secret could make. */
function seal(plaintext: Buffer, signer: TokenKey = key, issuedAtMs = NOW, version = 1): string {
  const header = Buffer.alloc(7);
  header.writeUInt8(version, 0);
  signer.id.copy(header, 1);
  header.writeUInt32BE(Math.floor(issuedAtMs / 1000), 3);
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', signer.key, nonce);
  cipher.setAAD(header);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

function plaintext(topic: string, email: string): Buffer {
  const t = Buffer.from(topic, 'utf8');
  return Buffer.concat([Buffer.from([t.length]), t, Buffer.from(email, 'utf8')]);
}

/** Version 1 and the real key id, then zeros: passes every check before the tag. */
function headerOnly(byteLength: number): string {
  const bytes = Buffer.alloc(byteLength);
  bytes[0] = 1;
  key.id.copy(bytes, 1);
  return bytes.toString('base64url');
}

describe('token wire format', () => {
  it('derives the documented key id and still verifies a token issued by an earlier build', () => {
    expect(key.id.toString('hex')).toBe('a3fb');
    expect(key.key.export().toString('hex')).toBe('9cfbaca627cfe47572e947c3d80681327b8fc32aa4717069f3b90c6d5763dd58');
    expect(verifyToken(GOLDEN, keys, NOW)).toEqual({
      ok: true,
      claims: { email: EMAIL, topic: 'newsletter', issuedAt: NOW, keyId: 'a3fb' },
    });
  });

  it('issues the documented layout: version 1, key id, issue second, then a tag-checked ciphertext', () => {
    const bytes = Buffer.from(issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW + 999), 'base64url');
    expect(bytes[0]).toBe(1);
    expect(bytes.subarray(1, 3).toString('hex')).toBe('a3fb');
    expect(bytes.readUInt32BE(3)).toBe(NOW / 1000);
    // 7 header + 12 nonce + (1 + 10 topic + 20 address) + 16 tag
    expect(bytes.length).toBe(7 + 12 + 1 + 10 + EMAIL.length + 16);
  });

  it('reads a token sealed by hand the same way as an issued one (so the helpers below are faithful)', () => {
    expect(verifyToken(seal(plaintext('news', 'a@b.co')), keys, NOW)).toEqual({
      ok: true,
      claims: { email: 'a@b.co', topic: 'news', issuedAt: NOW, keyId: 'a3fb' },
    });
  });

  it('refuses to issue without a key', () => {
    expect(() => issueToken({ email: EMAIL, topic: 'newsletter' }, [], NOW)).toThrow(new Error('no unsubscribe key'));
  });
});

describe('verifyToken refusals, each with its reason', () => {
  it('longer than 700 characters is malformed before anything else is looked at', () => {
    const long = headerOnly(528); // 704 characters: would otherwise reach the tag check
    expect(long).toHaveLength(704);
    expect(verifyToken(long, keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
    const limit = headerOnly(525); // exactly 700: allowed through to the tag check
    expect(limit).toHaveLength(700);
    expect(verifyToken(limit, keys, NOW)).toEqual({ ok: false, reason: 'forged' });
  });

  it('shorter than header + nonce + 1 byte + tag (36 bytes) is malformed; exactly 36 reaches the tag check', () => {
    expect(verifyToken(headerOnly(3), keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyToken(headerOnly(35), keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyToken(headerOnly(36), keys, NOW)).toEqual({ ok: false, reason: 'forged' });
  });

  it('a non-canonical spelling (stray low bits in the last character) is malformed', () => {
    // 65 bytes are 87 characters, the last one carrying 2 unused bits.
    const token = seal(plaintext('news', 'abcdefghijklmnopqrst@b.co'));
    expect(token).toHaveLength(87);
    expect(verifyToken(token, keys, NOW).ok).toBe(true);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]!;
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(token, 'base64url'));
    expect(verifyToken(respelled, keys, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('another version byte is malformed, not forged', () => {
    expect(verifyToken(seal(plaintext('news', 'a@b.co'), key, NOW, 2), keys, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('a genuine tag over an unreadable plaintext is malformed: bad topic, unnormalized address, too short', () => {
    for (const bad of [
      plaintext('bad topic', 'a@b.co'),
      plaintext('', 'a@b.co'),
      plaintext('news', 'Jane@Example.com'),
      plaintext('news', ' a@b.co'),
      plaintext('news', 'not-an-address'),
      Buffer.from([200, 0x61]),
    ]) {
      expect(verifyToken(seal(bad), keys, NOW), bad.toString('hex')).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts a token issued up to one hour in the future, and not a second more', () => {
    const token = issueToken({ email: EMAIL, topic: 'newsletter' }, keys, NOW);
    expect(verifyToken(token, keys, NOW - 3_600_000).ok).toBe(true);
    expect(verifyToken(token, keys, NOW - 1000).ok).toBe(true);
    expect(verifyToken(token, keys, NOW - 3_601_000)).toEqual({ ok: false, reason: 'expired' });
  });
});

describe('secrets', () => {
  it('accepts a secret of exactly 32 characters and refuses 31', () => {
    expect(deriveTokenKeys(['s'.repeat(32)])).toHaveLength(1);
    expect(() => deriveTokenKeys(['s'.repeat(31)])).toThrow(
      new Error('unsubscribe secrets must be at least 32 characters'),
    );
  });

  it("caches each secret's derived key (same object), across calls and other secrets", () => {
    const first = deriveTokenKeys([SECRET_A])[0];
    deriveTokenKeys(['cache-other-secret-0123456789abcdefgh']);
    expect(deriveTokenKeys([SECRET_A])[0]).toBe(first);
  });

  it('bounds the cache: the 66th distinct secret clears it', () => {
    const cached = (secret: string, entry: TokenKey) => deriveTokenKeys([secret])[0] === entry;
    const fresh = (i: number, run: string) => `bound-${run}-${String(i).padStart(4, '0')}-0123456789abcdefghij`;
    // Run 1: insert fresh secrets until one insertion evicts the one just before it (a clear).
    let previous = fresh(0, 'a');
    let previousEntry = deriveTokenKeys([previous])[0]!;
    let cleared = false;
    for (let i = 1; i <= 200 && !cleared; i++) {
      const secret = fresh(i, 'a');
      const entry = deriveTokenKeys([secret])[0]!;
      cleared = !cached(previous, previousEntry); // re-inserts `previous` if it was evicted
      previous = secret;
      previousEntry = entry;
    }
    expect(cleared).toBe(true);
    // The cache now holds exactly two secrets. Count insertions until the next clear.
    let count = 0;
    previous = fresh(0, 'b');
    previousEntry = deriveTokenKeys([previous])[0]!;
    count++;
    for (let i = 1; i <= 200; i++) {
      const secret = fresh(i, 'b');
      const entry = deriveTokenKeys([secret])[0]!;
      count++;
      if (!cached(previous, previousEntry)) break;
      previous = secret;
      previousEntry = entry;
    }
    // 2 + 63 = 65 entries, then the 64th fresh insertion finds more than 64 and clears.
    expect(count).toBe(64);
  });
});

describe('parseSecretList', () => {
  it('reads a JSON array even with surrounding blanks, trimming each secret and dropping blanks', () => {
    expect(parseSecretList('  ["one,two", " three ", ""]  ')).toEqual(['one,two', 'three']);
    expect(parseSecretList(' a , b ,, ')).toEqual(['a', 'b']);
    expect(parseSecretList(undefined)).toEqual([]);
  });

  it('refuses an array with anything but strings', () => {
    const refusal = new SecretListFormatError('unsubscribe secrets must be a JSON array of strings');
    expect(() => parseSecretList('["a", 1]')).toThrow(refusal);
    expect(() => parseSecretList('[{"a":1}]')).toThrow(refusal);
  });

  it('refuses broken JSON without quoting the secrets', () => {
    expect(() => parseSecretList('[k1-0123456789abcdef')).toThrow(
      new SecretListFormatError(
        'unsubscribe secrets must be a JSON array of strings (this starts with "[" but is not valid JSON)',
      ),
    );
  });
});
