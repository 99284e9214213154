/**
 * The sender's shape rules on their own: the domain read from an address as providers write it (never
 * a guess), a provider scope as a key part, and what callers may ask about (isSender).
 */
import { describe, expect, it } from 'vitest';
import { isSender, pickSender, scopeSender, senderDomain } from '../../../lambdas/core/reputation/sender.js';

/** A domain of exactly `length` characters: 63-character labels, then one to make up the rest. */
const domainOf = (length: number) => {
  const labels: string[] = [];
  let left = length;
  while (left > 64 + 2) {
    labels.push('a'.repeat(63));
    left -= 64;
  }
  labels.push('b'.repeat(left - 4), 'com');
  return labels.join('.');
};

describe('senderDomain', () => {
  it('reads the domain of a bare address or of the one in angle brackets, lower-cased', () => {
    expect(senderDomain('a@example.com')).toBe('example.com');
    expect(senderDomain('"Name, Inc" <a@News.Example.COM>')).toBe('news.example.com');
    expect(senderDomain('user@host@mail.example.org')).toBe('mail.example.org');
  });

  it('allows whitespace after the brackets and around the address', () => {
    expect(senderDomain('Name <a@example.com>  \t')).toBe('example.com');
    expect(senderDomain('Name < a@example.com >')).toBe('example.com');
    expect(senderDomain('  a@example.com  ')).toBe('example.com');
  });

  it('reads nothing when the brackets are not last, there is no local part, or no @', () => {
    expect(senderDomain('Name <a@example.com> trailing')).toBeUndefined();
    expect(senderDomain('@example.com')).toBeUndefined();
    expect(senderDomain('Name <@example.com>')).toBeUndefined();
    expect(senderDomain('example.com')).toBeUndefined();
    expect(senderDomain('Name <example.com>')).toBeUndefined();
  });

  it('takes a domain of up to 253 characters, not 254', () => {
    expect(domainOf(253)).toHaveLength(253);
    expect(domainOf(254)).toHaveLength(254);
    expect(senderDomain(`a@${domainOf(253)}`)).toBe(domainOf(253));
    expect(senderDomain(`a@${domainOf(254)}`)).toBeUndefined();
  });

  it('refuses what is not a domain, and what is not a string', () => {
    for (const bad of ['a@localhost', 'a@-x.example', 'a@x_y.example', 'a@example.com.', 42, undefined, {}])
      expect([bad, senderDomain(bad)]).toEqual([bad, undefined]);
  });
});

describe('scopeSender and pickSender', () => {
  it('names a scope from a string or a number, nothing from anything else or what cannot be a key part', () => {
    expect(scopeSender('ses', 'configuration-set', 'ConfigSet')).toBe('ses:configuration-set/ConfigSet');
    expect(scopeSender('postmark', 'stream', 23)).toBe('postmark:stream/23');
    for (const bad of [true, null, undefined, { toString: () => 'x' }, ['x']])
      expect([bad, scopeSender('ses', 'configuration-set', bad)]).toEqual([bad, undefined]);
    expect(scopeSender('ses', 'configuration-set', 'has space')).toBeUndefined();
    expect(scopeSender('ses', 'configuration-set', 'has#hash')).toBeUndefined();
  });

  it('picks the first usable candidate, else the provider', () => {
    expect(pickSender('ses', undefined, 'bad sender', 'example.com', 'other.example')).toBe('example.com');
    expect(pickSender('ses', undefined, 'a#b')).toBe('ses');
  });
});

describe('isSender', () => {
  it('is true of 1 to 253 printable ASCII characters without # or space', () => {
    for (const good of ['example.com', 'ses:configuration-set/ConfigSet', '!', 'x'.repeat(253), '"~'])
      expect([good, isSender(good)]).toEqual([good, true]);
  });

  it('is false of anything else, a number included', () => {
    for (const bad of ['', 'a b', 'a#b', 'é.example', 'x'.repeat(254), 'a\nb', 42, null, undefined, ['a']])
      expect([bad, isSender(bad)]).toEqual([bad, false]);
  });
});
