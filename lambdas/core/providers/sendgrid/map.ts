/**
 * SendGrid's event vocabulary → our event kinds. One table, so the policy is reviewable in one place.
 * Field reference: https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event
 */
import { compactDetail, stringField, type Classification } from '../../classification.js';
import type { EventDetail } from '../../event.js';
import { canonicalTopic } from '../../topics.js';

/**
 * `dropped` means SendGrid did not send because the address is already on one of its own suppression
 * lists: an echo of an earlier event (which we may have missed), not a new one.
 */
const DROPPED_ECHOES: Readonly<Record<string, Classification['kind']>> = {
  'Bounced Address': 'hard_bounce',
  'Spam Reporting Address': 'complaint',
  'Unsubscribed Address': 'unsubscribe',
};

const IGNORED: Readonly<Record<string, string>> = {
  processed: 'lifecycle: accepted for delivery, not an outcome',
  deferred: 'temporary deferral: SendGrid keeps retrying',
  open: 'engagement event',
  click: 'engagement event',
};

/** Classifies one event object. `event` is the element's `event` field, already checked to be a string. */
export function classifySendgridEvent(event: string, element: Readonly<Record<string, unknown>>): Classification {
  // Custom args arrive as top-level keys too, so `type` is only read where SendGrid defines it.
  const isBounce = event === 'bounce';
  const detail: EventDetail = compactDetail({
    bounceType: isBounce ? stringField(element.type) : undefined,
    bounceSubType: isBounce ? stringField(element.bounce_classification) : undefined,
    status: stringField(element.status),
    diagnosticCode: stringField(element.reason),
    providerEventType: event,
  });

  switch (event) {
    case 'delivered':
      return { kind: 'delivered', detail };
    case 'bounce':
      // `type` says which: `bounce` is SendGrid's hard bounce, `blocked` its temporary block.
      if (element.type === 'bounce') return { kind: 'hard_bounce', detail };
      if (element.type === 'blocked') return { kind: 'soft_bounce', detail };
      // SendGrid's own documented bounce example has no `type` ({"reason":"500 unknown recipient",
      // "status":"5.0.0"}), so an untyped bounce is real and must not be dropped. The enhanced status
      // class decides: 5.x.x is permanent (hard); anything else, or none, is the recoverable soft bounce,
      // never a guess that suppresses for good.
      return { kind: permanentStatus(element) ? 'hard_bounce' : 'soft_bounce', detail };
    case 'spamreport':
      return { kind: 'complaint', detail };
    case 'unsubscribe':
      return { kind: 'unsubscribe', detail };
    // The scope comes from the event type, not from whether asm_group_id is present: delivery events
    // carry it too. A group we cannot name makes the opt-out global (never lost), the opt-in ignored.
    case 'group_unsubscribe': {
      const topic = canonicalTopic.sendgridGroup(element.asm_group_id);
      return topic === undefined ? { kind: 'unsubscribe', detail } : { kind: 'unsubscribe', topic, detail };
    }
    case 'group_resubscribe': {
      const topic = canonicalTopic.sendgridGroup(element.asm_group_id);
      return topic === undefined
        ? { kind: 'ignored', ignoredReason: 'group_resubscribe without a usable asm_group_id', detail }
        : { kind: 'subscribe', topic, detail };
    }
    case 'dropped': {
      const reason = typeof element.reason === 'string' ? element.reason : '';
      const echoed = Object.hasOwn(DROPPED_ECHOES, reason) ? DROPPED_ECHOES[reason] : undefined;
      if (echoed) return { kind: echoed, detail: { ...detail, echo: true } };
      return { kind: 'ignored', ignoredReason: 'dropped for a reason that is not a suppression echo', detail };
    }
    default: {
      const reason = Object.hasOwn(IGNORED, event) ? IGNORED[event] : undefined;
      return { kind: 'ignored', ignoredReason: reason ?? 'unknown SendGrid event type', detail };
    }
  }
}

/** An enhanced status code (`5.0.0`), or failing that an SMTP reply code leading `reason`, of class 5. */
function permanentStatus(element: Readonly<Record<string, unknown>>): boolean {
  if (typeof element.status === 'string' && element.status.trim() !== '') return /^5\.\d{1,3}\.\d{1,3}$/.test(element.status.trim());
  return typeof element.reason === 'string' && /^5\d\d\b/.test(element.reason.trim());
}
