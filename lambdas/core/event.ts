/**
 * The normalized event model: what every provider module turns a verified request into.
 * Provider-specific vocabulary stops here; the ratchet and the pipeline only ever see these types.
 */
import { MalformedRequestError } from './errors.js';

/**
 * `unsubscribe` without `topic` is global (consent to subscription mail withdrawn); with `topic` it is
 * an opt-out of that topic only. `subscribe` is a topic opt-in and always carries `topic`.
 */
export const EVENT_KINDS = [
  'delivered',
  'soft_bounce',
  'hard_bounce',
  'complaint',
  'unsubscribe',
  'subscribe',
  'ignored',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The kinds that change suppression state; `ignored` events are acknowledged and dropped at the edge. */
export type ActionableKind = Exclude<EventKind, 'ignored'>;

export interface EventDetail {
  /** Provider bounce class as sent (SES `Permanent`, SendGrid `bounce`/`blocked`, Mailgun `permanent`, ...). */
  bounceType?: string;
  bounceSubType?: string;
  /** Enhanced SMTP status, e.g. `5.1.1`. */
  status?: string;
  diagnosticCode?: string;
  /** ARF feedback type for complaints (`abuse`, `fraud`, ...). */
  complaintFeedbackType?: string;
  /** The provider did not send because the address was already on its own suppression list. */
  echo?: boolean;
  /** The provider's own event/type name, for audit. */
  providerEventType?: string;
}

export interface NormalizedEvent {
  provider: string;
  /** Stable dedup key: identical across the provider's retries of the same event. */
  eventId: string;
  /** Trimmed, lower-cased address (see `normalizeRecipient`). */
  recipient: string;
  kind: EventKind;
  /**
   * The scope of an `unsubscribe` (absent: global) or a `subscribe` (always set): the canonical topic
   * name (`sendgrid:group:<id>`, `ses:<list>:<topic>`, ...; see lambdas/core/topics.ts). Aliases from
   * TOPIC_ALIASES are applied by the consumer, so the inbox keeps the provider's own scope.
   */
  topic?: string;
  /** Set when `kind` is `ignored`: why we acknowledged it without acting. */
  ignoredReason?: string;
  /** The provider's own event time, epoch milliseconds. Never arrival time. */
  occurredAt: number;
  /**
   * The id of the email the event is about, as the provider names it (SES `mail.messageId`, SendGrid's
   * `sg_message_id` before its first `.`, ...). Absent when the provider sent none we can use. The
   * soft-bounce budget counts messages by it, and the edge keys SES and SendGrid events by content with it.
   */
  messageId?: string;
  detail: EventDetail;
  /**
   * Who sent it, for the reputation counters (core/reputation/sender.ts): the sending domain, else the
   * provider's scope (`ses:configuration-set/<name>`, `postmark:stream/<server>/<stream>`), else the
   * provider's name. Set only on the outcomes of a send (deliveries, bounces, complaints): an event
   * without one counts nothing. Each provider's mapper says which field gives it (docs/reputation.md).
   */
  sender?: string;
  /**
   * The exact bytes this event came from, as UTF-8 text: the whole body for one-event requests,
   * the element's own JSON for batches (a SendGrid batch can exceed DynamoDB's 400 KB item limit).
   */
  raw: string;
}

/** Longer ids are treated as absent (the event then counts on its own): no provider's ids come near it. */
export const MAX_MESSAGE_ID_LENGTH = 256;

// Printable ASCII without spaces, as an RFC 5322 msg-id and every provider's id is: one byte a
// character, so the ids every evidence entry keeps stay small next to DynamoDB's 400 KB item limit.
const MESSAGE_ID = /^[\x21-\x7e]+$/;

/**
 * A provider's message id, or undefined when it is not 1 to MAX_MESSAGE_ID_LENGTH printable ASCII
 * characters. Never trimmed or clipped: a changed id could merge two messages into one strike.
 */
export function messageIdField(value: unknown): string | undefined {
  return isMessageId(value) ? value : undefined;
}

export function isMessageId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_MESSAGE_ID_LENGTH && MESSAGE_ID.test(value);
}

export function isActionable(event: NormalizedEvent): event is NormalizedEvent & { kind: ActionableKind } {
  return event.kind !== 'ignored';
}

// Deliberately conservative: one @, a non-empty local part without whitespace, a dotted domain.
// We are not validating deliverability, only refusing to key suppression state on garbage.
const ADDRESS = /^[^\s@<>()[\],;:"]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;
const MAX_ADDRESS_LENGTH = 320;

/** Trims and lower-cases; throws MalformedRequestError when the result is not an email address. */
export function normalizeRecipient(value: unknown): string {
  if (typeof value !== 'string') throw new MalformedRequestError('recipient is not a string');
  const address = value.trim().toLowerCase();
  if (address.length === 0 || address.length > MAX_ADDRESS_LENGTH || !ADDRESS.test(address)) {
    throw new MalformedRequestError('recipient is not an email address');
  }
  return address;
}
