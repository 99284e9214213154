/**
 * Map keys. `softBounces` is keyed `<provider>#<eventId>`; `evidence` is keyed
 * `<kind>:<provider>#<eventId>`, and `manual:<at>` for manual suppressions.
 *
 * `provider#eventId` is the inbox key, so "the same event" means the same thing in both tables and a
 * provider retry or a queue redelivery lands on the same entry. The kind is part of the evidence key
 * (and soft bounces live in their own map) so that an id reused for a different kind (a sloppy
 * generic sender, an inbox row past its TTL) adds an entry instead of replacing one: replacing a
 * complaint with anything else would be an automatic way out of suppression, which must not exist.
 * Two versions of one key (so: of one kind) keep the later-dated one. For SES and SendGrid events that
 * name their message, the event id is a content key (pipeline/content-key.ts), so a copy the provider
 * sent under a new id of its own lands on the same entry too.
 */
import type { EvidenceKind } from './record.js';

export function evidenceKey(kind: EvidenceKind, provider: string, eventId: string): string {
  return `${kind}:${provider}#${eventId}`;
}

export function softBounceKey(provider: string, eventId: string): string {
  return `${provider}#${eventId}`;
}

export function manualKey(at: number): string {
  return `manual:${at}`;
}
