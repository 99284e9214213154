/**
 * SES's own document (the SNS `Message`, JSON serialized into a string) → normalized events.
 * Runs only after the SNS signature verified. Both publishing styles are read: identity feedback
 * notifications (`notificationType`) and configuration-set event publishing (`eventType`).
 */
import { compactDetail, stringField, withRecipient } from '../../classification.js';
import { MalformedRequestError } from '../../errors.js';
import { type EventDetail, type EventKind, messageIdField, type NormalizedEvent } from '../../event.js';
import { isRecord, parseJsonObject } from '../../json.js';
import { parseEventTime } from '../../time.js';
import { canonicalTopic } from '../../topics.js';
import { EVENT_OBJECT_KEY, IGNORED } from './event-types.js';
import { sesSender } from './sender.js';

export interface SesMessageContext {
  provider: string;
  /** SNS MessageId: identical across SNS retries, so `${snsMessageId}:${recipient}` is a stable event id. */
  snsMessageId: string;
  /** The signed SNS Timestamp, epoch ms: the last-resort event time. */
  snsTimestampMs: number;
  /** The whole request body text. */
  raw: string;
}

type Json = Record<string, unknown>;

export function sesEventsFromMessage(message: string, context: SesMessageContext): NormalizedEvent[] {
  const payload = parseJsonObject(message, 'SNS Message');
  const type = sesEventType(payload);
  const mail = isRecord(payload['mail']) ? payload['mail'] : undefined;
  const builder = new EventBuilder(context, type, mail);

  switch (type) {
    case 'Bounce':
      return bounceEvents(requireRecord(payload['bounce'], 'bounce'), builder);
    case 'Complaint':
      return complaintEvents(requireRecord(payload['complaint'], 'complaint'), builder);
    case 'Delivery':
      return deliveryEvents(requireRecord(payload['delivery'], 'delivery'), builder);
    case 'Subscription':
      return subscriptionEvents(requireRecord(payload['subscription'], 'subscription'), builder);
    default: {
      // Unknown types are acknowledged, not refused: "Amazon SES reserves the right to add" event
      // types, and a 4xx would make SNS drop them just the same, only without an audit record.
      // Own keys only: a type named after an Object.prototype member ('constructor', 'toString') must
      // read as unknown, not as that member.
      const reason = Object.hasOwn(IGNORED, type) ? IGNORED[type]! : 'unrecognized SES event type';
      const detailObject = Object.hasOwn(EVENT_OBJECT_KEY, type) ? payload[EVENT_OBJECT_KEY[type]!] : undefined;
      const at = isRecord(detailObject) ? detailObject['timestamp'] : undefined;
      return [builder.ignored(firstDestination(mail), reason, builder.occurredAt(at))];
    }
  }
}

export const NOT_SES_REASON = 'SNS message is not an SES notification';
export const CONFLICTING_TYPES_REASON = 'SES message has conflicting eventType and notificationType';

/** Throws MalformedRequestError with one of the reasons above; the provider acknowledges it as ignored (index.ts). */
function sesEventType(payload: Json): string {
  const eventType = payload['eventType'];
  const notificationType = payload['notificationType'];
  if (eventType !== undefined && notificationType !== undefined && eventType !== notificationType) {
    throw new MalformedRequestError(CONFLICTING_TYPES_REASON);
  }
  const type = eventType ?? notificationType;
  if (typeof type !== 'string' || type === '') throw new MalformedRequestError(NOT_SES_REASON);
  return type;
}

function bounceEvents(bounce: Json, builder: EventBuilder): NormalizedEvent[] {
  const bounceType = requireString(bounce['bounceType'], 'bounce.bounceType');
  // Only Permanent is hard. Transient and Undetermined are soft by SES's own definition, and a type
  // we do not know yet is soft too: hard bounces suppress for good (the ratchet never loosens), so an
  // unrecognized class must not be able to do that on a guess. A soft bounce is the recoverable error.
  const kind: EventKind = bounceType === 'Permanent' ? 'hard_bounce' : 'soft_bounce';
  const bounceSubType = stringField(bounce['bounceSubType']);
  const occurredAt = builder.occurredAt(bounce['timestamp']);
  // Suppressed / OnAccountSuppressionList: SES never tried, the address was already on its own list.
  const echo = bounceSubType === 'Suppressed' || bounceSubType === 'OnAccountSuppressionList' ? true : undefined;
  return builder.perRecipient(requireList(bounce['bouncedRecipients'], 'bounce.bouncedRecipients'), (entry) => {
    const recipient = recipientEntry(entry);
    return {
      address: recipient['emailAddress'],
      kind,
      occurredAt,
      detail: {
        bounceType,
        bounceSubType,
        status: stringField(recipient['status']),
        diagnosticCode: stringField(recipient['diagnosticCode']),
        echo,
      },
    };
  });
}

function complaintEvents(complaint: Json, builder: EventBuilder): NormalizedEvent[] {
  const complaintFeedbackType = stringField(complaint['complaintFeedbackType']);
  const occurredAt = builder.occurredAt(complaint['timestamp']);
  const echo = complaint['complaintSubType'] === 'OnAccountSuppressionList' ? true : undefined;
  // ARF `not-spam` is a recipient telling their ISP the mail is *not* spam: a record, not a complaint.
  const notSpam = complaintFeedbackType === 'not-spam';
  const list = requireList(complaint['complainedRecipients'], 'complaint.complainedRecipients');
  return builder.perRecipient(list, (entry) => ({
    address: recipientEntry(entry)['emailAddress'],
    kind: notSpam ? 'ignored' : 'complaint',
    ignoredReason: notSpam ? 'complaint feedback type is not-spam' : undefined,
    occurredAt,
    detail: { complaintFeedbackType, echo },
  }));
}

function deliveryEvents(delivery: Json, builder: EventBuilder): NormalizedEvent[] {
  const occurredAt = builder.occurredAt(delivery['timestamp']);
  return builder.perRecipient(requireList(delivery['recipients'], 'delivery.recipients'), (address) => ({
    address,
    kind: 'delivered',
    occurredAt,
    detail: {},
  }));
}

/**
 * One change per entry of `newTopicPreferences.topicSubscriptionStatus` (topic
 * `ses:<contactList>:<topicName>`: OptOut → unsubscribe, OptIn → subscribe), plus a global
 * unsubscribe when `unsubscribeAll` is true (SES allows one contact list per account). A topic we
 * cannot name turns its OptOut into a global unsubscribe (never lost) and drops its OptIn.
 */
function subscriptionEvents(subscription: Json, builder: EventBuilder): NormalizedEvent[] {
  const occurredAt = builder.occurredAt(subscription['timestamp']);
  const changes = subscriptionChanges(subscription);
  const destination = builder.mail?.['destination'];
  if (changes.length === 0) {
    return [
      builder.ignored(firstDestination(builder.mail), 'subscription change without an opt-out or a topic', occurredAt),
    ];
  }
  // The subscription object does not name the recipient; SES puts it in mail.destination. With more
  // than one destination we cannot tell whose preferences changed, so we record the event instead of guessing.
  const destinations = requireList(destination, 'mail.destination');
  if (destinations.length > 1) {
    return [builder.ignored('', 'subscription change with several destinations: recipient is ambiguous', occurredAt)];
  }
  return changes.flatMap((change) =>
    builder.perRecipient(destinations, (address) => ({
      address,
      kind: change.kind,
      occurredAt,
      detail: {},
      topic: change.topic,
    })),
  );
}

function subscriptionChanges(subscription: Json): Array<{ kind: 'unsubscribe' | 'subscribe'; topic?: string }> {
  const preferences = subscription['newTopicPreferences'];
  if (!isRecord(preferences)) return [];
  let global = preferences['unsubscribeAll'] === true;
  // By topic name; a name listed twice keeps its OptOut (the recipient's withdrawal wins a tie).
  const byTopic = new Map<string, 'unsubscribe' | 'subscribe'>();
  const statuses = Array.isArray(preferences['topicSubscriptionStatus']) ? preferences['topicSubscriptionStatus'] : [];
  for (const entry of statuses) {
    if (!isRecord(entry)) continue;
    const status = entry['subscriptionStatus'];
    if (status !== 'OptIn' && status !== 'OptOut') continue;
    const topic = canonicalTopic.sesTopic(subscription['contactList'], entry['topicName']);
    if (topic === undefined) {
      if (status === 'OptOut') global = true;
      continue;
    }
    if (byTopic.get(topic) !== 'unsubscribe') byTopic.set(topic, status === 'OptOut' ? 'unsubscribe' : 'subscribe');
  }
  const changes: Array<{ kind: 'unsubscribe' | 'subscribe'; topic?: string }> = global ? [{ kind: 'unsubscribe' }] : [];
  for (const [topic, kind] of byTopic) changes.push({ kind, topic });
  return changes;
}

interface EventSpec {
  address: unknown;
  kind: EventKind;
  /** A topic change; its event id gains `:<topic>`, since one SES message can carry several. */
  topic?: string | undefined;
  ignoredReason?: string | undefined;
  occurredAt: number;
  detail: EventDetail;
}

class EventBuilder {
  constructor(
    private readonly context: SesMessageContext,
    private readonly providerEventType: string,
    readonly mail: Json | undefined,
  ) {}

  /**
   * The event object's own time, else when the mail was sent, else when SNS published (signed). A time
   * we cannot read is treated as absent: the events are authentic, and refusing them over a timestamp
   * would make SNS drop every recipient's outcome.
   */
  occurredAt(eventTimestamp: unknown): number {
    for (const value of [eventTimestamp, this.mail?.['timestamp']]) {
      if (value === undefined || value === null) continue;
      try {
        return parseEventTime(value, 'SES timestamp');
      } catch {
        // unreadable: try the next source
      }
    }
    return this.context.snsTimestampMs;
  }

  /**
   * One event per distinct recipient; a repeated address would repeat the event id, so it is dropped.
   * A value that is not an address becomes an ignored event through the shared rule (withRecipient),
   * so one garbage entry among `bouncedRecipients` never costs the valid ones their bounce.
   */
  perRecipient(entries: unknown[], spec: (entry: unknown) => EventSpec): NormalizedEvent[] {
    const seen = new Set<string>();
    const events: NormalizedEvent[] = [];
    for (const entry of entries) {
      const s = spec(entry);
      const checked = withRecipient(s.address, { kind: s.kind, ignoredReason: s.ignoredReason, detail: s.detail });
      if (seen.has(checked.recipient)) continue;
      seen.add(checked.recipient);
      const topic = checked.kind === 'ignored' ? undefined : s.topic;
      events.push(
        this.event(checked.recipient, checked.kind, s.occurredAt, checked.detail, checked.ignoredReason, topic),
      );
    }
    return events;
  }

  /** Ignored events may have no recipient (`''`): nothing is keyed on it. */
  ignored(recipient: string, reason: string, occurredAt: number): NormalizedEvent {
    return this.event(recipient, 'ignored', occurredAt, {}, reason);
  }

  private event(
    recipient: string,
    kind: EventKind,
    occurredAt: number,
    detail: EventDetail,
    ignoredReason: string | undefined,
    topic?: string,
  ): NormalizedEvent {
    const event: NormalizedEvent = {
      provider: this.context.provider,
      // Global events keep `<MessageId>:<recipient>`, so rows admitted before topics existed still dedupe.
      eventId:
        topic === undefined
          ? `${this.context.snsMessageId}:${recipient}`
          : `${this.context.snsMessageId}:${recipient}:${topic}`,
      recipient,
      kind,
      occurredAt,
      detail: compactDetail({ ...detail, providerEventType: this.providerEventType }),
      raw: this.context.raw,
    };
    if (ignoredReason !== undefined) event.ignoredReason = ignoredReason;
    if (topic !== undefined) event.topic = topic;
    // `mail.messageId`: SES's id of the email, the same in every notification about it.
    const messageId = messageIdField(this.mail?.['messageId']);
    if (messageId !== undefined && kind !== 'ignored') event.messageId = messageId;
    return Object.assign(event, sesSender(kind, this.mail));
  }
}

/**
 * An entry of `bouncedRecipients` / `complainedRecipients`. One that is not an object has no address:
 * it becomes an ignored event like any other (perRecipient).
 */
function recipientEntry(entry: unknown): Json {
  return isRecord(entry) ? entry : {};
}

/** For ignored events only: the first destination when it is an address, else `''` (the shared rule, withRecipient). */
function firstDestination(mail: Json | undefined): string {
  const destination = mail?.['destination'];
  if (!Array.isArray(destination) || destination.length === 0) return '';
  return withRecipient(destination[0], { kind: 'ignored', detail: {} }).recipient;
}

function requireRecord(value: unknown, what: string): Json {
  if (!isRecord(value)) throw new MalformedRequestError(`SES ${what} is missing or not an object`);
  return value;
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '')
    throw new MalformedRequestError(`SES ${what} is missing or not a string`);
  return value;
}

/** A list SES always fills: an empty one is as malformed as a missing one (nobody to attribute it to). */
function requireList(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new MalformedRequestError(`SES ${what} is missing or empty`);
  }
  return value;
}
