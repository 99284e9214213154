/**
 * Postmark record → normalized event. Postmark sends one JSON record per request and routes on
 * `RecordType`. Field names differ between record types (`Email` on Bounce/SpamComplaint,
 * `Recipient` elsewhere), so each type names its recipient and timestamp field explicitly.
 * Reference: /work/shared/reference/providers/postmark.md §3–§7.
 */
import { createHash } from 'node:crypto';
import { type Classification, compactDetail, stringField, withRecipient } from '../../classification.js';
import { MalformedRequestError } from '../../errors.js';
import { type EventDetail, messageIdField, type NormalizedEvent } from '../../event.js';
import { isOutcome, pickSender, scopeSender } from '../../reputation/sender.js';
import { parseEventTime } from '../../time.js';
import { canonicalTopic } from '../../topics.js';

export const POSTMARK = 'postmark';

interface RecordShape {
  recipientField: 'Email' | 'Recipient';
  timestampField: 'DeliveredAt' | 'BouncedAt' | 'ChangedAt' | 'ReceivedAt';
}

// A Map, not an object literal: a RecordType of `constructor` or `__proto__` must find nothing.
const RECORD_SHAPES: ReadonlyMap<string, RecordShape> = new Map<string, RecordShape>([
  ['Delivery', { recipientField: 'Recipient', timestampField: 'DeliveredAt' }],
  ['Bounce', { recipientField: 'Email', timestampField: 'BouncedAt' }],
  // BouncedAt on a SpamComplaint is the time of the complaint.
  ['SpamComplaint', { recipientField: 'Email', timestampField: 'BouncedAt' }],
  ['SubscriptionChange', { recipientField: 'Recipient', timestampField: 'ChangedAt' }],
  ['Open', { recipientField: 'Recipient', timestampField: 'ReceivedAt' }],
  ['Click', { recipientField: 'Recipient', timestampField: 'ReceivedAt' }],
]);

/**
 * Bounce `Type` values (postmark.md §4). `TypeCode` is never used: Postmark's own SpamComplaint
 * example carries 512, which the SDK calls SpamNotification.
 *
 * Hard: the address itself is bad. ManuallyDeactivated is here because Postmark has already stopped
 * sending to the address (it arrives with `Inactive: true` anyway).
 */
const HARD_BOUNCE_TYPES = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated']);
/**
 * Soft: delivery failed for a reason that may pass. SpamNotification (content blocked) explicitly
 * does not deactivate the address [PM-1065]; Blocked and DMARCPolicy are about the sender, not the
 * recipient; Unknown is "Postmark could not classify the NDR".
 */
const SOFT_BOUNCE_TYPES = new Set([
  'Transient',
  'SoftBounce',
  'DnsError',
  'SpamNotification',
  'Unknown',
  'VirusNotification',
  'Blocked',
  'DMARCPolicy',
]);
/** Not a delivery failure at all: auto-replies, challenge mail, and send-side or inbound errors. */
const NON_FAILURE_TYPES = new Set([
  'Subscribe',
  'AutoResponder',
  'AddressChange',
  'OpenRelayTest',
  'ChallengeVerification',
  'Unconfirmed',
  'SMTPApiError',
  'InboundError',
  'TemplateRenderingFailed',
]);

/** What the mapping tables decide; `detail` is attached afterwards, once per record. */
type Decision = Omit<Classification, 'detail'>;

/**
 * Order matters: the explicit Type classes first, then `Inactive`, which postmark.md calls the
 * authoritative signal (it means Postmark deactivated the address), then the soft class.
 * An unrecognised Type is a delivery failure we cannot classify: soft, never hard, and never silently
 * dropped; the raw record keeps the exact value for audit.
 */
function classifyBounce(type: string, inactive: boolean): Decision {
  if (type === 'SpamComplaint') return { kind: 'complaint' }; // legacy: complaints on the bounce hook
  // An "unsubscribe me" NDR is the recipient asking to stop: postmark.md §4 maps it to unsubscribe.
  if (type === 'Unsubscribe') return { kind: 'unsubscribe' };
  if (NON_FAILURE_TYPES.has(type))
    return { kind: 'ignored', ignoredReason: `bounce type ${type} is not a delivery failure` };
  if (inactive || HARD_BOUNCE_TYPES.has(type)) return { kind: 'hard_bounce' };
  if (SOFT_BOUNCE_TYPES.has(type)) return { kind: 'soft_bounce' };
  return { kind: 'soft_bounce' }; // a Type newer than this table: a failure, but not a proven permanent one
}

/**
 * SubscriptionChange. Postmark's suppression lists are per message stream, so a ManualSuppression (a
 * recipient's unsubscribe, or a Customer/Admin suppression of the stream) is an opt-out of topic
 * `postmark:stream:<MessageStream>`, and a reactivation (`SuppressSending: false`, reason null) is
 * that topic's opt-in: it never lifts a global reason, so following it is safe even when the stream
 * was suppressed for a hard bounce. HardBounce and SpamComplaint stay global.
 */
function classifySubscriptionChange(record: Record<string, unknown>): Decision {
  const suppress = record['SuppressSending'];
  // Authenticated but unreadable: acknowledged (Postmark drops a 4xx'd record for good anyway).
  if (typeof suppress !== 'boolean') return { kind: 'ignored', ignoredReason: 'SuppressSending is not a boolean' };
  const topic = canonicalTopic.postmarkStream(record['MessageStream']);
  if (!suppress) {
    return topic === undefined
      ? { kind: 'ignored', ignoredReason: 'reactivation without a usable MessageStream' }
      : { kind: 'subscribe', topic };
  }
  const reason = record['SuppressionReason'];
  switch (reason) {
    case 'HardBounce':
      return { kind: 'hard_bounce' };
    case 'SpamComplaint':
      return { kind: 'complaint' };
    // A stream we cannot name makes the opt-out global: an unsubscribe is never dropped.
    case 'ManualSuppression':
      return topic === undefined ? { kind: 'unsubscribe' } : { kind: 'unsubscribe', topic };
    default:
      return { kind: 'ignored', ignoredReason: 'unrecognised SuppressionReason' };
  }
}

function decide(recordType: string, record: Record<string, unknown>): Decision {
  switch (recordType) {
    case 'Delivery':
      return { kind: 'delivered' };
    case 'Bounce': {
      // A bounce without a readable Type is still a bounce: Inactive (Postmark's own verdict) decides,
      // else it is the unclassified soft kind. Refusing it would lose it: Postmark drops 4xx'd records.
      const type = typeof record['Type'] === 'string' ? record['Type'] : '';
      return classifyBounce(type, record['Inactive'] === true);
    }
    case 'SpamComplaint':
      return { kind: 'complaint' };
    case 'SubscriptionChange':
      return classifySubscriptionChange(record);
    case 'Open':
    case 'Click':
      return { kind: 'ignored', ignoredReason: 'engagement event' };
    default:
      return { kind: 'ignored', ignoredReason: 'unsupported RecordType' };
  }
}

/**
 * Postmark has no event id, so we derive one from fields that are identical on every retry of the
 * same record (postmark.md §7): the record type, the bounce `ID` (Bounce/SpamComplaint), the message
 * id, the recipient (one message has one Delivery per recipient), the event timestamp, the stream,
 * and the fields that tell two records about the same message apart (a suppression vs a reactivation,
 * two clicked links). Encoding the tuple as a JSON array is the unambiguous separator: every string
 * is quoted and escaped, and absent fields become `null`, never an empty string.
 */
export function postmarkEventId(record: Record<string, unknown>): string {
  const shape = RECORD_SHAPES.get(String(record['RecordType']));
  const field = (name: string): unknown => record[name] ?? null;
  const tuple = [
    field('RecordType'),
    field('ID'),
    field('MessageID'),
    shape ? field(shape.recipientField) : field('Recipient'),
    shape ? field(shape.timestampField) : null,
    field('MessageStream'),
    field('SuppressSending'),
    field('OriginalLink'),
  ];
  return createHash('sha256').update(JSON.stringify(tuple)).digest('hex');
}

function detailFor(recordType: string, record: Record<string, unknown>): EventDetail {
  const bounceLike = recordType === 'Bounce' || recordType === 'SpamComplaint';
  return compactDetail({
    providerEventType: recordType,
    bounceType: bounceLike ? stringField(record['Type']) : stringField(record['SuppressionReason']),
    diagnosticCode: bounceLike ? (stringField(record['Details']) ?? stringField(record['Description'])) : undefined,
  });
}

/**
 * Maps one already-authenticated Postmark record; `raw` is the whole body (one record per request).
 * A recipient we cannot key state on turns the event into an ignored one rather than a 400
 * (see `withRecipient`): Postmark drops a 4xx'd request for good and pauses the hook when failures
 * persist, which would lose every later bounce.
 */
export function postmarkEvent(record: Record<string, unknown>, raw: string): NormalizedEvent {
  const recordType = record['RecordType'];
  if (typeof recordType !== 'string') throw new MalformedRequestError('RecordType is not a string');
  const classification: Classification = { ...decide(recordType, record), detail: detailFor(recordType, record) };
  const shape = RECORD_SHAPES.get(recordType);
  const base = { provider: POSTMARK, eventId: postmarkEventId(record), raw };
  if (shape === undefined) {
    // A record type Postmark added after this code: acknowledge it without insisting on a shape we
    // do not know. Nothing acts on ignored events; occurredAt 0 says "unknown" rather than passing
    // arrival time off as the event's time.
    const recipient = record['Recipient'] ?? record['Email'];
    return { ...base, ...withRecipient(recipient, classification), occurredAt: 0 };
  }
  const event: NormalizedEvent = {
    ...base,
    ...withRecipient(record[shape.recipientField], classification),
    occurredAt: parseEventTime(record[shape.timestampField], shape.timestampField),
  };
  const messageId = messageIdField(record['MessageID']);
  if (messageId !== undefined && event.kind !== 'ignored') event.messageId = messageId;
  if (isOutcome(event.kind) && OUTCOME_RECORDS.has(recordType)) event.sender = postmarkSender(record);
  return event;
}

/**
 * The records that are outcomes of a send. A SubscriptionChange is Postmark suppressing an address
 * after a Bounce or SpamComplaint record it already sent (or an operator's action): counting it would
 * count one bounce twice.
 */
const OUTCOME_RECORDS = new Set(['Delivery', 'Bounce', 'SpamComplaint']);

/**
 * Postmark names `From` on Bounce and SpamComplaint records but not on Delivery, so its sender is the
 * message stream every record carries, within its server (stream ids are per server):
 * `postmark:stream/<ServerID>/<MessageStream>`; without a stream, the provider as a whole.
 */
export function postmarkSender(record: Record<string, unknown>): string {
  const stream = record['MessageStream'];
  const server = record['ServerID'];
  const name =
    typeof server === 'number' || typeof server === 'string' ? `${String(server)}/${String(stream)}` : stream;
  return pickSender(POSTMARK, typeof stream === 'string' ? scopeSender(POSTMARK, 'stream', name) : undefined);
}
