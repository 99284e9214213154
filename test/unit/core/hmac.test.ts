/** The shared-secret primitives: HMAC over raw bytes, constant-time any-of matching, versioned lists. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, matchesAny, sha256, versionedValues } from '../../../lambdas/core/hmac.js';

describe('hmacSha256', () => {
  it('equals one HMAC over prefix + body bytes', () => {
    const key = Buffer.from('key');
    const body = Buffer.from([0x7b, 0xc3, 0xa9, 0x7d]);
    const expected = createHmac('sha256', key).update(Buffer.concat([Buffer.from('1.id.'), body])).digest();
    expect(hmacSha256(key, '1.id.', body).equals(expected)).toBe(true);
  });

  it('does not decode the body: invalid UTF-8 bytes are MACed as they are', () => {
    const key = Buffer.from('key');
    expect(hmacSha256(key, '', Buffer.from([0xff])).equals(hmacSha256(key, '', Buffer.from('\uFFFD')))).toBe(false);
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
});
