/**
 * A verified SendGrid body → events, through SendGrid's event vocabulary → our event kinds (one table,
 * so the policy is reviewable in one place).
 * Field reference: https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event
 */
import { type Classification, compactDetail, stringField, withRecipient } from '../../classification.js';
import { MalformedRequestError } from '../../errors.js';
import { type EventDetail, messageIdField, type NormalizedEvent } from '../../event.js';
import { arrayElementTexts, isRecord, parseJsonStrict } from '../../json.js';
import { isOutcome } from '../../reputation/sender.js';
import { parseEventTime } from '../../time.js';
import { canonicalTopic } from '../../topics.js';

export const SENDGRID = 'sendgrid';

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
  if (typeof element.status === 'string' && element.status.trim() !== '')
    return /^5\.\d{1,3}\.\d{1,3}$/.test(element.status.trim());
  return typeof element.reason === 'string' && /^5\d\d\b/.test(element.reason.trim());
}

/** "These IDs are up to 100 characters long and are URL safe" (SendGrid event reference). */
const MAX_EVENT_ID_LENGTH = 100;

/**
 * Turns a verified body into events. A body that is not a strict JSON array (not JSON, not UTF-8,
 * a duplicate key anywhere) is refused with 400: no event in it can be trusted to be the one SendGrid
 * meant. Inside a well-formed array, one element we cannot use (not an object, no `sg_event_id`,
 * `event` or readable `timestamp`, or a recipient that is not an address) becomes an ignored event
 * with its reason, and the rest of the batch is admitted: SendGrid retries a 4xx'd batch with the
 * same bytes for 24 h, so refusing the batch would lose up to ~1,500 good events with it.
 *
 * `raw` is the element's exact text sliced from the body (not a re-serialization), so it is the bytes
 * SendGrid signed, and costs one extra linear scan of the body.
 */
export function parseSendgridBatch(text: string): NormalizedEvent[] {
  const body = parseJsonStrict(text);
  // A bare object is what SendGrid's own library signs as its legacy test payload: one event, not a batch.
  if (isRecord(body)) return [toEvent(body, text)];
  if (!Array.isArray(body)) throw new MalformedRequestError('SendGrid body is not a JSON array');
  const raws = arrayElementTexts(text);
  if (raws.length !== body.length) throw new Error('SendGrid batch slicing disagrees with JSON.parse');
  return body.map((element: unknown, index) => toEvent(element, raws[index]!));
}

function toEvent(element: unknown, raw: string): NormalizedEvent {
  const unusable = (why: string, eventId = ''): NormalizedEvent => ({
    provider: SENDGRID,
    eventId,
    recipient: '',
    kind: 'ignored',
    ignoredReason: `unusable SendGrid event: ${why}`,
    occurredAt: 0,
    detail: {},
    raw,
  });
  if (!isRecord(element)) return unusable('not an object');
  const eventId = validEventId(element.sg_event_id);
  if (typeof element.event !== 'string') return unusable('no event type', eventId);
  const classified = withRecipient(element.email, classifySendgridEvent(element.event, element));
  if (classified.kind === 'ignored') {
    // Nothing acts on it, so its shape is not insisted on: SendGrid has posted test events and
    // `dropped`/`Invalid` events with no sg_event_id. 0 means "time unknown".
    return {
      provider: SENDGRID,
      eventId: eventId ?? '',
      occurredAt: lenientTime(element.timestamp),
      raw,
      ...classified,
    };
  }
  if (eventId === '') return unusable('no valid sg_event_id');
  // Seconds per the docs; Marketing Single Sends have been seen with milliseconds, which this also reads.
  let occurredAt: number;
  try {
    occurredAt = parseEventTime(element.timestamp, 'SendGrid event timestamp');
  } catch {
    // Without the event's time the ratchet cannot order it against the address's other events.
    return unusable('no readable timestamp', eventId);
  }
  const messageId = sendgridMessageId(element.sg_message_id);
  return {
    provider: SENDGRID,
    eventId,
    occurredAt,
    raw,
    ...classified,
    ...(messageId === undefined ? {} : { messageId }),
    // The Event Webhook names no sender, domain or subuser: SendGrid's events count as one sender.
    ...(isOutcome(classified.kind) ? { sender: SENDGRID } : {}),
  };
}

/**
 * `sg_message_id` is the message's id followed by `.filter…`, a suffix naming the SendGrid filter host
 * that handled it; the id is the local part of the message's `smtp-id`. The id itself may contain dots:
 * SendGrid's own reference examples carry `14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0` with
 * smtp-id `<14c5d75ce93.dfd.64b469@ismtpd-555>` (and `….000000000000000000000` on the same message's
 * `processed` event), while current ids have none (`qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-…-56.0`). So
 * the cut is at the first `.filter`, not the first `.`, which would truncate the older ids. Without
 * that marker the whole value is kept: it may split one message in two, never merge two. Absent on
 * delayed bounces.
 */
export function sendgridMessageId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const suffix = value.indexOf(FILTER_SUFFIX);
  return messageIdField(suffix === -1 ? value : value.slice(0, suffix));
}

const FILTER_SUFFIX = '.filter';

/** '' when absent or unusable: ignored events need no id (nothing is stored for them). */
function validEventId(value: unknown): string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_EVENT_ID_LENGTH ? value : '';
}

function lenientTime(value: unknown): number {
  try {
    return parseEventTime(value, 'SendGrid timestamp');
  } catch {
    return 0;
  }
}
