/**
 * Source-IP allowlists for providers that do not sign their requests (Postmark). Parsed once, at
 * create(); a malformed entry throws there, because an allowlist that silently drops an entry
 * either locks the provider out or, worse, lets an operator believe a range is covered when it is not.
 *
 * The address checked is always the TCP peer API Gateway saw (`WebhookRequest.sourceIp`), never
 * X-Forwarded-For: that header is written by the client and proves nothing.
 */
import { BlockList, isIP } from 'node:net';

export interface IpAllowlist {
  /** False for a missing or unparseable address: no address, no admission. */
  allows(address: string | undefined): boolean;
}

const PREFIX = /^[0-9]{1,3}$/;

/**
 * Parses a comma-separated list of IPv4/IPv6 addresses and CIDR ranges (`3.134.147.250`,
 * `10.0.0.0/8`, `2600:1f24:64:8000::/52`). Returns undefined when the setting is unset or blank
 * (no allowlist configured); throws on any invalid or empty entry.
 */
export function parseIpAllowlist(setting: string | undefined, variable: string): IpAllowlist | undefined {
  if (setting === undefined || setting.trim() === '') return undefined;
  const list = new BlockList();
  setting.split(',').forEach((rawEntry, index) => {
    const entry = rawEntry.trim();
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const family = isIP(address);
    const invalid = new Error(`${variable} entry ${index + 1} is not an IP address or CIDR range`);
    if (family === 0 || address.includes('%')) throw invalid; // zone ids (`fe80::1%eth0`) are host-local
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash < 0) {
      list.addAddress(address, type);
      return;
    }
    const prefixText = entry.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!PREFIX.test(prefixText) || prefix > (family === 4 ? 32 : 128)) throw invalid;
    list.addSubnet(address, prefix, type);
  });
  return {
    allows(address) {
      if (address === undefined) return false;
      const family = isIP(address);
      if (family === 0) return false;
      try {
        // An IPv4-mapped IPv6 peer (`::ffff:1.2.3.4`, what a dual-stack socket reports) is checked as
        // IPv6; BlockList matches it against IPv4 rules too.
        return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
      } catch {
        return false;
      }
    },
  };
}
