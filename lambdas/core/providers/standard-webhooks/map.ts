/**
 * Standard Webhooks is an envelope, not an email schema, so the vocabulary here is Resend's
 * (`{type, created_at, data: {to: [...], ...}}`, resend.md §2), the main Standard Webhooks email sender,
 * plus `email.unsubscribed` for senders that have one.
 *
 * Mapping:
 *   email.delivered                       → delivered
 *   email.bounced                         → hard_bounce when data.bounce.type is hard/permanent
 *                                           (case-insensitive) or absent (Resend's older shape),
 *                                           soft_bounce for any other type (Transient, Undetermined, …)
 *   email.complained                      → complaint
 *   email.unsubscribed                    → unsubscribe
 *   contact.topics.updated                → per entry of data.topics: opt_out → unsubscribe, opt_in →
 *                                           subscribe, topic `resend:topic:<id>`; event id
 *                                           `${webhook-id}:${recipient}:${topic}` (one per change)
 *   contact.created / contact.updated     → unsubscribe when data.unsubscribed === true (Resend has
 *                                           no email.unsubscribed: this is how its unsubscribes arrive;
 *                                           re-sending it on every later contact edit is harmless,
 *                                           unsubscribe is a one-way state), else ignored
 *   everything else (email.sent, email.opened, email.clicked, email.delivery_delayed,
 *   email.failed, email.suppressed, domain.*, …)        → ignored
 *
 * Dedup: `data.to` is a list, so an actionable event becomes one NormalizedEvent per distinct
 * recipient, always with eventId `${webhook-id}:${recipient}`, whether there is one recipient or
 * ten: one rule, no special case. An ignored request becomes a single event with eventId `webhook-id`,
 * and so do the recipients of an actionable request that are not addresses (one ignored event for all).
 * The webhook id is signed and stays the same across retries and manual replays (resend.md §4).
 */
import {
  type Classification,
  compactDetail,
  INVALID_RECIPIENT_REASON,
  stringField,
  withRecipient,
} from '../../classification.js';
import { type EventDetail, messageIdField, type NormalizedEvent } from '../../event.js';
import { isRecord } from '../../json.js';
import { pickSender, senderDomain } from '../../reputation/sender.js';
import { parseEventTime } from '../../time.js';
import { canonicalTopic } from '../../topics.js';

export const STANDARD = 'standard';

/** What the mapping table decides; `detail` is attached afterwards. */
type Decision = Omit<Classification, 'detail'>;

const HARD_BOUNCE_TYPES = new Set(['hard', 'permanent']);

/**
 * Resend documents `email.bounced` as "the recipient's mail server permanently rejected the email",
 * and its older payloads carry only `bounce.message`, no `bounce.type`: an untyped bounce is therefore
 * hard. A type that says otherwise (SES-style `Transient`, `Undetermined`, or anything unknown) is soft:
 * only an explicit permanent class may suppress for good.
 */
function bounceKind(bounceType: unknown): 'hard_bounce' | 'soft_bounce' {
  if (bounceType === undefined || bounceType === null) return 'hard_bounce';
  if (typeof bounceType === 'string' && bounceType.trim() === '') return 'hard_bounce';
  return typeof bounceType === 'string' && HARD_BOUNCE_TYPES.has(bounceType.trim().toLowerCase())
    ? 'hard_bounce'
    : 'soft_bounce';
}

function decide(type: string, data: Record<string, unknown>): Decision {
  switch (type) {
    case 'email.delivered':
      return { kind: 'delivered' };
    case 'email.bounced':
      return { kind: bounceKind(isRecord(data['bounce']) ? data['bounce']['type'] : undefined) };
    case 'email.complained':
      return { kind: 'complaint' };
    case 'email.unsubscribed':
      return { kind: 'unsubscribe' };
    case 'contact.created':
    case 'contact.updated':
      return data['unsubscribed'] === true
        ? { kind: 'unsubscribe' }
        : { kind: 'ignored', ignoredReason: 'contact change without unsubscribe' };
    default:
      return { kind: 'ignored', ignoredReason: `event type ${type} is not tracked` };
  }
}

/** `Jane <jane@example.com>` → `jane@example.com`: senders may echo the display form they were given. */
function addressOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const angle = /<([^<>]*)>\s*$/.exec(value);
  return angle ? angle[1] : value;
}

/**
 * The recipients as sent: `data.to` (a list, or a single string) for email events, `data.email` for
 * contact events. Split into distinct normalized addresses and a count of values that are not
 * addresses: those cannot key suppression state, and are acknowledged as ignored rather than
 * failing the request (the shared rule, `withRecipient`), so one odd address never costs the others
 * their event.
 */
function recipientsOf(type: string, data: Record<string, unknown>): { valid: string[]; invalid: number } {
  const source = type.startsWith('contact.') ? data['email'] : data['to'];
  const list: unknown[] = Array.isArray(source) ? source : [source];
  const valid = new Set<string>();
  let invalid = 0;
  for (const value of list) {
    // The classification does not matter here, only whether the value keys a recipient ('' when not).
    const { recipient } = withRecipient(addressOf(value), { kind: 'delivered', detail: {} });
    if (recipient === '') invalid++;
    else valid.add(recipient);
  }
  return { valid: [...valid], invalid };
}

/**
 * The provider's event time: the envelope's `created_at` (Resend) or `timestamp` (the Standard
 * Webhooks payload recommendation), then `data.created_at`, and only then the signed
 * webhook-timestamp, which is the time of this delivery attempt rather than of the event.
 * A time we cannot read counts as absent: the body is authentic, and a 400 over a timestamp would
 * cost the recipients their event on every retry.
 */
function occurredAt(body: Record<string, unknown>, data: Record<string, unknown>, signedAtMs: number): number {
  for (const [value, what] of [
    [body['created_at'], 'created_at'],
    [body['timestamp'], 'timestamp'],
    [data['created_at'], 'data.created_at'],
  ] as const) {
    if (value === undefined || value === null) continue;
    try {
      return parseEventTime(value, what);
    } catch {
      // unreadable: the next source
    }
  }
  return signedAtMs;
}

/** Resend documents bounce.diagnosticCode as an array of SMTP diagnostic lines. */
function diagnosticText(value: unknown): string | undefined {
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value.join('; ');
  return stringField(value);
}

function detailOf(type: string, data: Record<string, unknown>): EventDetail {
  const bounce = type === 'email.bounced' && isRecord(data['bounce']) ? data['bounce'] : {};
  return compactDetail({
    providerEventType: type,
    bounceType: stringField(bounce['type']),
    bounceSubType: stringField(bounce['subType']),
    diagnosticCode: diagnosticText(bounce['diagnosticCode']) ?? stringField(bounce['message']),
  });
}

/** Maps one authenticated Standard Webhooks body. `raw` is the whole body for every event it yields. */
export function standardWebhookEvents(
  body: Record<string, unknown>,
  raw: string,
  webhookId: string,
  signedAtMs: number,
): NormalizedEvent[] {
  // Authentic (signed) but without a type: a sender's ping or a shape we do not know. Acknowledged,
  // never refused: a 4xx would only make the sender retry the same bytes until it gives up.
  const type = typeof body['type'] === 'string' ? body['type'] : '';
  const data = isRecord(body['data']) ? body['data'] : {};
  if (type === 'contact.topics.updated') return topicEvents(body, data, raw, webhookId, signedAtMs);
  const decision: Decision =
    type === '' ? { kind: 'ignored', ignoredReason: 'body has no event type' } : decide(type, data);
  const detail = detailOf(type, data);

  if (decision.kind === 'ignored') {
    // Nothing acts on it, so do not insist on a shape: the first readable recipient, if any.
    const recipient = recipientsOf(type, data).valid[0] ?? '';
    const occurred = occurredAt(body, data, signedAtMs);
    return [{ provider: STANDARD, eventId: webhookId, recipient, occurredAt: occurred, detail, raw, ...decision }];
  }

  const when = occurredAt(body, data, signedAtMs);
  const { valid, invalid } = recipientsOf(type, data);
  // Resend's id of the email (email.* events); contact events are about no email and carry none.
  const messageId = type.startsWith('email.') ? messageIdField(data['email_id']) : undefined;
  const sender = standardSender(type, data);
  const events: NormalizedEvent[] = valid.map((recipient) => ({
    provider: STANDARD,
    eventId: `${webhookId}:${recipient}`,
    recipient,
    kind: decision.kind,
    occurredAt: when,
    detail: { ...detail },
    raw,
    ...(messageId === undefined ? {} : { messageId }),
    ...(sender === undefined ? {} : { sender }),
  }));
  if (invalid > 0 || events.length === 0) {
    // One event for every unusable value (none at all, or not an address), so the drop is visible in logs.
    events.push({
      provider: STANDARD,
      eventId: webhookId,
      recipient: '',
      kind: 'ignored',
      ignoredReason: INVALID_RECIPIENT_REASON,
      occurredAt: when,
      detail: { ...detail },
      raw,
    });
  }
  return events;
}

/**
 * Resend's `data.from` (`Acme <noreply@acme.com>`) rides on every `email.*` event, so its deliveries,
 * bounces and complaints name one sending domain; without one, the provider as a whole. Contact
 * events and unsubscribes are no outcome of a send and carry none.
 */
function standardSender(type: string, data: Record<string, unknown>): string | undefined {
  if (type !== 'email.delivered' && type !== 'email.bounced' && type !== 'email.complained') return undefined;
  return pickSender(STANDARD, senderDomain(data['from']));
}

/**
 * Resend's per-topic preferences: `data.topics: [{ id, subscription: "opt_in" | "opt_out" }]` for
 * `data.email`. Entries we cannot read are skipped; an `opt_out` whose id cannot make a topic name
 * becomes a global unsubscribe (never lost). Nothing usable → one ignored event, as elsewhere.
 */
function topicEvents(
  body: Record<string, unknown>,
  data: Record<string, unknown>,
  raw: string,
  webhookId: string,
  signedAtMs: number,
): NormalizedEvent[] {
  const type = 'contact.topics.updated';
  const detail = detailOf(type, data);
  const changes = new Map<string, Decision>();
  for (const entry of Array.isArray(data['topics']) ? data['topics'] : []) {
    if (!isRecord(entry) || (entry['subscription'] !== 'opt_in' && entry['subscription'] !== 'opt_out')) continue;
    const optOut = entry['subscription'] === 'opt_out';
    const topic = canonicalTopic.resendTopic(entry['id']);
    if (topic === undefined) {
      if (optOut) changes.set('', { kind: 'unsubscribe' });
      continue;
    }
    if (changes.get(topic)?.kind !== 'unsubscribe')
      changes.set(topic, { kind: optOut ? 'unsubscribe' : 'subscribe', topic });
  }
  const { valid } = recipientsOf(type, data);
  if (changes.size === 0 || valid.length === 0) {
    const reason =
      changes.size === 0 ? 'contact.topics.updated without a usable topic change' : INVALID_RECIPIENT_REASON;
    return [
      {
        provider: STANDARD,
        eventId: webhookId,
        recipient: '',
        kind: 'ignored',
        ignoredReason: reason,
        occurredAt: 0,
        detail,
        raw,
      },
    ];
  }
  const when = occurredAt(body, data, signedAtMs);
  return valid.flatMap((recipient) =>
    [...changes.values()].map(
      (change): NormalizedEvent => ({
        provider: STANDARD,
        eventId: change.topic === undefined ? `${webhookId}:${recipient}` : `${webhookId}:${recipient}:${change.topic}`,
        recipient,
        kind: change.kind,
        occurredAt: when,
        detail: { ...detail },
        raw,
        ...(change.topic === undefined ? {} : { topic: change.topic }),
      }),
    ),
  );
}
