/** The shared-secret primitives: HMAC over raw bytes, constant-time any-of matching, versioned lists. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hmacSha256Text,
  matchesAny,
  matchesUnderAnyKey,
  presentedText,
  sha256,
  versionedValues,
} from '../../../lambdas/core/hmac.js';

describe('hmacSha256Text', () => {
  const key = Buffer.from('key');
  const body = Buffer.from([0x7b, 0xc3, 0xa9, 0x7d]);
  const mac = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from('1.id.'), body]))
    .digest();

  it('is one HMAC over prefix + body bytes, as the ASCII bytes of its base64 or hex text', () => {
    expect(hmacSha256Text(key, '1.id.', body, 'base64').toString('latin1')).toBe(mac.toString('base64'));
    expect(hmacSha256Text(key, '1.id.', body, 'hex').toString('latin1')).toBe(mac.toString('hex'));
  });

  it('hashes the prefix as UTF-8', () => {
    const expected = createHmac('sha256', key).update(Buffer.from('é.', 'utf8')).digest('hex');
    expect(hmacSha256Text(key, 'é.', Buffer.alloc(0), 'hex').toString('latin1')).toBe(expected);
  });

  it('does not decode the body: invalid UTF-8 bytes are MACed as they are', () => {
    const invalid = hmacSha256Text(key, '', Buffer.from([0xff]), 'hex');
    expect(invalid.equals(hmacSha256Text(key, '', Buffer.from('\uFFFD'), 'hex'))).toBe(false);
  });
});

describe('presentedText', () => {
  it('never lets a non-ASCII character stand in for the ASCII one in its low byte', () => {
    // Latin1 would encode U+0141 as 0x41, "A"; UTF-8 gives two bytes >= 0x80, so no match (and another length).
    expect(matchesAny([presentedText('\u0141BCD')], [Buffer.from('ABCD', 'latin1')])).toBe(false);
    expect(matchesAny([presentedText('ABCD')], [Buffer.from('ABCD', 'latin1')])).toBe(true);
  });
});

describe('matchesUnderAnyKey', () => {
  const body = Buffer.from('{}');
  const right = Buffer.from('right-key');
  const wrong = Buffer.from('wrong-key');
  const presented = hmacSha256Text(right, 'p.', body, 'hex');

  it('is true when the entry is the MAC under any key, whatever its position', () => {
    expect(matchesUnderAnyKey(presented, [right], 'p.', body, 'hex')).toBe(true);
    expect(matchesUnderAnyKey(presented, [wrong, right], 'p.', body, 'hex')).toBe(true);
    expect(matchesUnderAnyKey(presented, [right, wrong], 'p.', body, 'hex')).toBe(true);
  });

  it('is false under other keys, another prefix, another encoding, or no keys', () => {
    expect(matchesUnderAnyKey(presented, [wrong], 'p.', body, 'hex')).toBe(false);
    expect(matchesUnderAnyKey(presented, [right], 'q.', body, 'hex')).toBe(false);
    expect(matchesUnderAnyKey(presented, [right], 'p.', body, 'base64')).toBe(false);
    expect(matchesUnderAnyKey(presented, [], 'p.', body, 'hex')).toBe(false);
  });
});

describe('sha256', () => {
  it('is 32 bytes', () => {
    expect(sha256('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('matchesAny', () => {
  const a = Buffer.from('aaaa');
  const b = Buffer.from('bbbb');

  it('is true when any presented value equals any expected value', () => {
    expect(matchesAny([b], [a, b])).toBe(true);
    expect(matchesAny([a, b], [b])).toBe(true);
  });

  it('is false when nothing matches, or either side is empty', () => {
    expect(matchesAny([a], [b])).toBe(false);
    expect(matchesAny([], [a])).toBe(false);
    expect(matchesAny([a], [])).toBe(false);
  });

  it('never matches values of a different length, prefixes included', () => {
    expect(matchesAny([Buffer.from('aaa')], [a])).toBe(false);
    expect(matchesAny([Buffer.from('aaaaa')], [a])).toBe(false);
  });

  it('stays true once matched (no later pair can unset it)', () => {
    expect(matchesAny([a, b], [a, Buffer.from('x')])).toBe(true);
  });
});

describe('versionedValues', () => {
  it('returns the values of one version, in order, skipping others and empties', () => {
    expect(versionedValues('v1,aaa v1a,bbb  v2,ccc v1,ddd', ' ', ',', 'v1')).toEqual(['aaa', 'ddd']);
  });

  it('splits on the first delimiter only', () => {
    expect(versionedValues('v1,a,b', ' ', ',', 'v1')).toEqual(['a,b']);
    expect(versionedValues('v1=a=', ',', '=', 'v1')).toEqual(['a=']);
  });

  it('keeps an empty value (it will not decode, so it cannot match)', () => {
    expect(versionedValues('v1,', ' ', ',', 'v1')).toEqual(['']);
  });

  it('does not match a version by prefix or case', () => {
    expect(versionedValues('v10,a V1,b v1a,c', ' ', ',', 'v1')).toEqual([]);
  });

  it('handles leading, trailing and only separators, and an empty header', () => {
    expect(versionedValues(' v1,a ', ' ', ',', 'v1')).toEqual(['a']);
    expect(versionedValues('   ', ' ', ',', 'v1')).toEqual([]);
    expect(versionedValues('', ' ', ',', 'v1')).toEqual([]);
    expect(versionedValues('v1', ' ', ',', 'v1')).toEqual([]);
  });
});
