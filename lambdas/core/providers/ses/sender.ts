/** Who sent an SES message, for the reputation counters (docs/reputation.md). */

import type { EventKind } from '../../event.js';
import { isRecord } from '../../json.js';
import { isOutcome, pickSender, scopeSender, senderDomain } from '../../reputation/sender.js';

type Json = Record<string, unknown>;

/**
 * The `mail` object rides on every SES notification, so deliveries, bounces and complaints name the
 * same sender (only outcomes carry one): the From domain SES tags (`ses:from-domain`, event publishing), else the domain of
 * `mail.source`, else the configuration set (`ses:configuration-set` tag), else `ses`.
 */
export function sesSender(kind: EventKind, mail: Json | undefined): { sender?: string } {
  return isOutcome(kind) ? { sender: sesSenderOf(mail) } : {};
}

function sesSenderOf(mail: Json | undefined): string {
  const tags = isRecord(mail?.['tags']) ? mail['tags'] : {};
  const tag = (name: string) => (Array.isArray(tags[name]) ? tags[name][0] : undefined);
  return pickSender(
    'ses',
    senderDomain(`x@${String(tag('ses:from-domain'))}`),
    senderDomain(mail?.['source']),
    scopeSender('ses', 'configuration-set', tag('ses:configuration-set')),
  );
}
