/** Rules 5–8 of the generic contract (see index.ts): an authenticated body → its one normalized event. */
import { MalformedRequestError } from '../../errors.js';
import {
  type ActionableKind,
  MAX_MESSAGE_ID_LENGTH,
  messageIdField,
  type NormalizedEvent,
  normalizeRecipient,
} from '../../event.js';
import { isOutcome, pickSender, senderDomain } from '../../reputation/sender.js';
import { parseEventTime } from '../../time.js';
import { isTopicName, TOPIC_NAME_PATTERN } from '../../topics.js';
import { GENERIC_HEADERS } from './verify.js';

export const GENERIC = 'generic';

/** The body `type` values: exactly the actionable kinds of the normalized model. */
export const GENERIC_EVENT_TYPES: readonly ActionableKind[] = [
  'delivered',
  'soft_bounce',
  'hard_bounce',
  'complaint',
  'unsubscribe',
  'subscribe',
];

/**
 * Rules 5–8, on an authenticated body. These are 400s: the request is genuine but does not follow
 * the contract, and retrying it will not help.
 */
export function genericEvent(
  body: Record<string, unknown>,
  raw: string,
  id: string,
  signedAtMs: number,
): NormalizedEvent {
  // The body id must repeat the header id. Both are signed, so a mismatch is a sender bug, not a forgery.
  if (body['id'] !== id) throw new MalformedRequestError(`body id does not equal ${GENERIC_HEADERS.id}`);
  const type = body['type'];
  if (typeof type !== 'string' || !(GENERIC_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new MalformedRequestError(`type is not one of ${GENERIC_EVENT_TYPES.join(', ')}`);
  }
  const recipient = normalizeRecipient(body['recipient']);
  const topic = genericTopic(type, body['topic']);
  // Optional; absent or null means "when it was signed".
  const occurred = body['occurredAt'];
  const occurredAt = occurred === undefined || occurred === null ? signedAtMs : parseEventTime(occurred, 'occurredAt');
  const messageId = genericMessageId(body['message_id']);
  const sender = genericSender(type, body['sender']);
  return {
    provider: GENERIC,
    eventId: id,
    recipient,
    kind: type as ActionableKind,
    occurredAt,
    detail: { providerEventType: type },
    raw,
    ...(topic === undefined ? {} : { topic }),
    ...(messageId === undefined ? {} : { messageId }),
    ...(sender === undefined ? {} : { sender }),
  };
}

/**
 * `sender`: optional, the sending address or domain (`news@example.com`, `example.com`); the domain is
 * what the reputation counters key on. Absent or null: the provider as a whole. Only outcomes carry one.
 */
function genericSender(type: string, value: unknown): string | undefined {
  if (!isOutcome(type as ActionableKind)) return undefined;
  if (value === undefined || value === null) return GENERIC;
  const domain = typeof value === 'string' ? senderDomain(value.includes('@') ? value : `x@${value}`) : undefined;
  if (domain === undefined) throw new MalformedRequestError('sender is not an email address or a domain');
  return pickSender(GENERIC, domain);
}

/** `message_id`: optional (absent or null: the event counts on its own); else 1 to 256 printable ASCII characters, no spaces. */
function genericMessageId(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const messageId = messageIdField(value);
  if (messageId === undefined)
    throw new MalformedRequestError(`message_id is not 1 to ${MAX_MESSAGE_ID_LENGTH} printable ASCII characters`);
  return messageId;
}

/** `topic`: optional on unsubscribe (absent or null: global), required on subscribe, refused elsewhere. */
function genericTopic(type: string, value: unknown): string | undefined {
  if (value === undefined || value === null) {
    if (type === 'subscribe') throw new MalformedRequestError('subscribe needs a topic');
    return undefined;
  }
  if (type !== 'unsubscribe' && type !== 'subscribe')
    throw new MalformedRequestError('topic is only allowed on unsubscribe and subscribe');
  if (!isTopicName(value)) throw new MalformedRequestError(`topic does not match ${TOPIC_NAME_PATTERN.source}`);
  return value;
}
