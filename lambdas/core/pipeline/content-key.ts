/**
 * Content keys: the dedup key of providers whose own event id is not the same on every copy of one
 * event. SendGrid's `sg_event_id` changes on its retries (one event re-posted up to dozens of times,
 * each with a new id), and SES publishing one notification twice gives each copy its own SNS
 * MessageId. For those providers an actionable event that names its message is keyed by what it
 * says instead: the message, the recipient, what happened and when. Every copy then lands on one
 * inbox row and one evidence entry, and a soft bounce on one entry of its message's strike.
 *
 * The corner this accepts: two genuinely distinct events that agree on all of those fields (same
 * message, recipient, kind, provider event type, topic, and event time to the provider's precision,
 * a second for SendGrid) become one. They say exactly the same thing to the ratchet, whose merge is
 * idempotent, so applying one is applying both; only the second raw copy is not archived.
 */
import { createHash } from 'node:crypto';
import { isActionable, type NormalizedEvent } from '../event.js';

/** Marks content keys apart from every provider id (none of which starts this way and has this length). */
export const CONTENT_KEY_PREFIX = 'c1.';

export function contentEventId(event: NormalizedEvent & { messageId: string }): string {
  // A JSON array is an unambiguous encoding: every field quoted and escaped, absent ones null.
  const fields = [
    event.messageId,
    event.recipient,
    event.kind,
    event.detail.providerEventType ?? null,
    event.topic ?? null,
    event.occurredAt,
  ];
  return CONTENT_KEY_PREFIX + createHash('sha256').update(JSON.stringify(fields)).digest('base64url');
}

/**
 * The event keyed by its content when it is actionable and names its message; otherwise unchanged
 * (an ignored event is never stored, and without a message id there is no content to key by: the
 * provider's own id stays the key, as for SendGrid's delayed bounces, which carry no sg_message_id).
 */
export function keyedByContent(event: NormalizedEvent): NormalizedEvent {
  if (!isActionable(event) || event.messageId === undefined) return event;
  return { ...event, eventId: contentEventId(event as NormalizedEvent & { messageId: string }) };
}
