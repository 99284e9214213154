/** parseIpAllowlist: addresses and CIDR ranges, parsed once, strict about every entry. */
import { describe, expect, it } from 'vitest';
import { parseIpAllowlist } from '../../../lambdas/core/ip-allowlist.js';

const list = (setting: string) => parseIpAllowlist(setting, 'ALLOWED_IPS')!;

describe('parseIpAllowlist', () => {
  it('is undefined (no allowlist) when unset or blank', () => {
    expect(parseIpAllowlist(undefined, 'ALLOWED_IPS')).toBeUndefined();
    expect(parseIpAllowlist(' ', 'ALLOWED_IPS')).toBeUndefined();
  });

  it('matches single IPv4 and IPv6 addresses exactly', () => {
    const allow = list('192.0.2.1, 2001:db8::1');
    expect(allow.allows('192.0.2.1')).toBe(true);
    expect(allow.allows('192.0.2.2')).toBe(false);
    expect(allow.allows('2001:db8:0:0:0:0:0:1')).toBe(true);
    expect(allow.allows('2001:db8::2')).toBe(false);
  });

  it('matches CIDR ranges at their edges', () => {
    const allow = list('198.51.100.0/24,2001:db8:abcd::/48');
    expect(allow.allows('198.51.100.0')).toBe(true);
    expect(allow.allows('198.51.100.255')).toBe(true);
    expect(allow.allows('198.51.101.0')).toBe(false);
    expect(allow.allows('2001:db8:abcd:ffff::1')).toBe(true);
    expect(allow.allows('2001:db8:abce::1')).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 peer against IPv4 rules', () => {
    expect(list('192.0.2.0/24').allows('::ffff:192.0.2.9')).toBe(true);
    expect(list('192.0.2.0/24').allows('::ffff:192.0.3.9')).toBe(false);
  });

  it('does not let an IPv4 rule match an unrelated IPv6 address', () => {
    expect(list('0.0.0.0/0').allows('2001:db8::1')).toBe(false);
  });

  it('refuses a missing or unparseable address', () => {
    const allow = list('0.0.0.0/0');
    expect(allow.allows(undefined)).toBe(false);
    expect(allow.allows('')).toBe(false);
    expect(allow.allows('example.com')).toBe(false);
    expect(allow.allows('192.0.2.1, 10.0.0.1')).toBe(false);
  });

  it.each(['192.0.2.1,', 'x', '192.0.2.0/33', '192.0.2.0/ 8', '::/129', '192.0.2.1/', '1.2.3.4/8/8', '300.1.1.1'])(
    'throws on %j, naming the variable and entry, not the value',
    (setting) => {
      expect(() => parseIpAllowlist(setting, 'ALLOWED_IPS')).toThrow(
        /^ALLOWED_IPS entry \d+ is not an IP address or CIDR range$/,
      );
    },
  );
});

describe('parseIpAllowlist at the edges', () => {
  it('accepts the widest prefix of each family (a /32 or /128 is one address)', () => {
    const allow = list('192.0.2.7/32, 2001:db8::7/128');
    expect(allow.allows('192.0.2.7')).toBe(true);
    expect(allow.allows('192.0.2.6')).toBe(false);
    expect(allow.allows('2001:db8::7')).toBe(true);
    expect(allow.allows('2001:db8::6')).toBe(false);
  });

  it.each(['192.0.2.0/+8', '192.0.2.0/8x', '192.0.2.0/x8', '192.0.2.0/0008', '::/1280', '/8', '192.0.2.0/'])(
    'throws on the prefix of %j',
    (entry) => {
      expect(() => parseIpAllowlist(`10.0.0.1,${entry}`, 'ALLOWED_IPS')).toThrow(
        new Error('ALLOWED_IPS entry 2 is not an IP address or CIDR range'),
      );
    },
  );

  it('refuses an address net.isIP rejects even where BlockList would read it (a dangling zone separator)', () => {
    expect(list('::/0').allows('fe80::1%')).toBe(false);
    expect(list('::/0').allows('fe80::1')).toBe(true);
  });
});
