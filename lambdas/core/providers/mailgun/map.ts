/**
 * A verified Mailgun `event-data` → its event, through Mailgun's `event-data.event` vocabulary → our
 * event kinds. Mailgun's two failure webhooks
 * (`permanent_fail`, `temporary_fail`) both deliver `event: "failed"`, told apart by `severity`.
 * Field reference: https://documentation.mailgun.com/docs/mailgun/user-manual/events/event-types
 */
import { type Classification, compactDetail, stringField, withRecipient } from '../../classification.js';
import { MalformedRequestError } from '../../errors.js';
import { type EventDetail, messageIdField, type NormalizedEvent } from '../../event.js';
import { isRecord } from '../../json.js';
import { isOutcome, pickSender, senderDomain } from '../../reputation/sender.js';
import { parseEventTime } from '../../time.js';

export const MAILGUN = 'mailgun';

/**
 * A permanent failure with one of these reasons means Mailgun did not even try: the address is on its
 * own suppression list (code 605, "Not delivering to previously bounced address"). It is an echo of
 * an earlier event, of the kind the list is named after.
 */
const SUPPRESSION_ECHOES: Readonly<Record<string, Classification['kind']>> = {
  'suppress-bounce': 'hard_bounce',
  'suppress-unsubscribe': 'unsubscribe',
  'suppress-complaint': 'complaint',
};

const IGNORED: Readonly<Record<string, string>> = {
  accepted: 'lifecycle: accepted for delivery, not an outcome',
  rejected: 'Mailgun refused the send request; no delivery was attempted',
  stored: 'lifecycle: message stored',
  opened: 'engagement event',
  clicked: 'engagement event',
};

/** Mailgun event ids are 22 characters; the bound keeps inbox keys small. */
const MAX_EVENT_ID_LENGTH = 100;

/** One authenticated `event-data` object → its event (the recipient checked by the shared rule). */
export function mailgunEvent(data: unknown, raw: string): NormalizedEvent {
  if (!isRecord(data)) throw new MalformedRequestError('Mailgun event-data is missing');
  if (typeof data.event !== 'string') throw new MalformedRequestError('Mailgun event-data has no event type');
  const id = data.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_EVENT_ID_LENGTH) {
    throw new MalformedRequestError('Mailgun event-data has no valid id');
  }
  // Float seconds with microseconds, e.g. 1529692198.641821.
  const occurredAt = parseEventTime(data.timestamp, 'Mailgun event timestamp');
  const classified = withRecipient(data.recipient, classifyMailgunEvent(data.event, data));
  const messageId = classified.kind === 'ignored' ? undefined : mailgunMessageId(data);
  const sender = isOutcome(classified.kind) ? mailgunSender(data) : undefined;
  return {
    provider: MAILGUN,
    // `id` is only unique within a day, so the event's own timestamp (as sent, identical on retries) joins it.
    eventId: `${id}:${String(data.timestamp).trim()}`,
    occurredAt,
    raw,
    ...classified,
    ...(messageId === undefined ? {} : { messageId }),
    ...(sender === undefined ? {} : { sender }),
  };
}

/**
 * The domain of `message.headers.from`, which Mailgun puts on delivered, failed and complained events
 * alike; `envelope.sender` (absent on complaints) only when there is no From. The envelope sender is
 * the Mailgun domain's bounce address, so preferring it would split a sender's complaints from its
 * deliveries. Neither: the provider as a whole.
 */
export function mailgunSender(data: Readonly<Record<string, unknown>>): string {
  const message = data['message'];
  const headers = isRecord(message) ? message['headers'] : undefined;
  const envelope = data['envelope'];
  return pickSender(
    MAILGUN,
    senderDomain(isRecord(headers) ? headers['from'] : undefined),
    senderDomain(isRecord(envelope) ? envelope['sender'] : undefined),
  );
}

/**
 * `message.headers.message-id`: the same on every attempt Mailgun makes to deliver one message, so its
 * temporary failures (one event per attempt) spend one strike of the soft-bounce budget, not one each.
 */
function mailgunMessageId(data: Readonly<Record<string, unknown>>): string | undefined {
  const message = data['message'];
  const headers = isRecord(message) ? message['headers'] : undefined;
  return isRecord(headers) ? messageIdField(headers['message-id']) : undefined;
}

/** Classifies one `event-data` object. `event` is its `event` field, already checked to be a string. */
export function classifyMailgunEvent(event: string, data: Readonly<Record<string, unknown>>): Classification {
  const isFailure = event === 'failed';
  const detail: EventDetail = compactDetail({
    ...deliveryStatusDetail(data['delivery-status']),
    bounceType: isFailure ? stringField(data.severity) : undefined,
    bounceSubType: isFailure ? stringField(data.reason) : undefined,
    providerEventType: event,
  });

  switch (event) {
    case 'delivered':
      return { kind: 'delivered', detail };
    case 'failed': {
      if (data.severity === 'temporary') return { kind: 'soft_bounce', detail };
      if (data.severity !== 'permanent') {
        return { kind: 'ignored', ignoredReason: 'failure without a known severity (permanent/temporary)', detail };
      }
      const reason = typeof data.reason === 'string' ? data.reason : '';
      const echoed = Object.hasOwn(SUPPRESSION_ECHOES, reason) ? SUPPRESSION_ECHOES[reason] : undefined;
      if (echoed) return { kind: echoed, detail: { ...detail, echo: true } };
      return { kind: 'hard_bounce', detail };
    }
    case 'complained':
      return { kind: 'complaint', detail };
    case 'unsubscribed':
      return { kind: 'unsubscribe', detail };
    default: {
      const reason = Object.hasOwn(IGNORED, event) ? IGNORED[event] : undefined;
      return { kind: 'ignored', ignoredReason: reason ?? 'unknown Mailgun event type', detail };
    }
  }
}

/**
 * `delivery-status`: the enhanced code (`5.1.1`) is the status when Mailgun has one, else the plain SMTP
 * code (`550`, or Mailgun's own `605`); the human text is `message`, or `description` when that is empty.
 */
function deliveryStatusDetail(value: unknown): EventDetail {
  if (!isRecord(value)) return {};
  const code =
    typeof value.code === 'number' && Number.isInteger(value.code) ? String(value.code) : stringField(value.code);
  return {
    status: stringField(value['enhanced-code']) ?? code,
    diagnosticCode: stringField(value.message) ?? stringField(value.description),
  };
}
