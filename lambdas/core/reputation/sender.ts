/**
 * Who a reputation counter belongs to. Providers pause a sending identity (a domain, an SES
 * configuration set, a Postmark stream), so rates are kept per sender, and per provider: one domain
 * sending through SES and SendGrid has two reputations, one with each.
 *
 * The order of preference (docs/reputation.md has the table per provider):
 *  1. the sending domain, where every event type that feeds the rate names it;
 *  2. else the provider's own scope (SES configuration set, Postmark server and message stream);
 *  3. else the provider as a whole.
 * A provider's mapper must pick the same rule for its deliveries as for its bounces and complaints,
 * or the numerator and the denominator land on different senders (Postmark names `From` on bounces
 * and complaints but not on deliveries, so Postmark is counted per stream).
 */

import type { EventKind } from '../event.js';

/** The kinds that are outcomes of a send: only these carry a sender and count. */
export function isOutcome(kind: EventKind): boolean {
  return kind === 'delivered' || kind === 'hard_bounce' || kind === 'soft_bounce' || kind === 'complaint';
}

/** Sender strings are DynamoDB key parts: printable ASCII without `#` (the key separator) or spaces. */
const SENDER = /^[\x21-\x22\x24-\x7e]{1,253}$/;
/** A DNS domain, lower-cased: what an address's part after `@` must be to name a sending domain. */
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * The domain of an address as providers write a sender: `a@example.com`, `Name <a@example.com>`,
 * `"Name, Inc" <a@Example.COM>`. Undefined when no domain can be read (never a guess).
 */
export function senderDomain(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const angle = /<([^<>]*)>\s*$/.exec(value);
  const address = (angle ? angle[1]! : value).trim();
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  const domain = address.slice(at + 1).toLowerCase();
  return domain.length <= 253 && DOMAIN.test(domain) ? domain : undefined;
}

/** A provider scope as a sender: `<provider>:<kind>/<name>`, or undefined when `name` cannot be a key part. */
export function scopeSender(provider: string, kind: string, name: unknown): string | undefined {
  if (typeof name !== 'string' && typeof name !== 'number') return undefined;
  const sender = `${provider}:${kind}/${String(name)}`;
  return SENDER.test(sender) ? sender : undefined;
}

/** The first usable candidate, else the provider itself. */
export function pickSender(provider: string, ...candidates: Array<string | undefined>): string {
  for (const candidate of candidates) if (candidate !== undefined && SENDER.test(candidate)) return candidate;
  return provider;
}

/** What callers (the CLI, the client) may ask about: the same shape the mappers produce. */
export function isSender(value: unknown): value is string {
  return typeof value === 'string' && SENDER.test(value);
}
