/**
 * One normalized, actionable event applied to one address's record. Pure: the adapter reads the
 * record, calls this, and writes the result back under a version guard when `changed`.
 */
import { EVENT_KINDS, isMessageId, type NormalizedEvent } from '../event.js';
import { isTopicName, NO_TOPIC_ALIASES, resolveTopic } from '../topics.js';
import { DETAIL_STRING_FIELDS } from './evidence.js';
import { evidenceKey, softBounceKey } from './keys.js';
import { type Facts, maxDefined, minDefined, normalize, readFacts, unionEvidence } from './normalize.js';
import { assertPolicy, DEFAULT_RATCHET_POLICY, type RatchetPolicy } from './policy.js';
import {
  type ApplyResult,
  type Effect,
  type Evidence,
  type EvidenceKind,
  emptyRecord,
  type SuppressionRecord,
} from './record.js';
import { clip, result } from './result.js';
import { unionTopics } from './topics.js';

// Provider codes (`Permanent`, `5.1.1`, `abuse`) are short; SMTP diagnostics can run long. Both are
// clipped so that the worst-case item stays far below 400 KB (see the size test).
const CODE_MAX = 48;
const DIAGNOSTIC_MAX = 160;

/**
 * Throws (TypeError) on an `ignored` event, on a malformed one, and when the event is for another
 * address than the record: all three are caller bugs, never something a provider can cause.
 */
export function applyEvent(
  record: SuppressionRecord | undefined,
  event: NormalizedEvent,
  policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
): ApplyResult {
  assertPolicy(policy);
  assertActionable(event);
  if (record !== undefined && record.email !== event.recipient) {
    throw new TypeError('event recipient does not match the suppression record');
  }
  // The stored record is "before" for effects: it is what senders have been reading.
  const previous = record ?? emptyRecord(event.recipient);
  const before: Facts = readFacts(previous);

  // Only grow the facts; normalize decides what still counts. History fields take every event,
  // even one a reactivation makes irrelevant: that keeps them order-independent too.
  const t = event.occurredAt;
  const after: Facts = {
    ...before,
    firstEventAt: minDefined(before.firstEventAt, t),
    lastEventAt: maxDefined(before.lastEventAt, t),
  };
  let key = '';
  let topic: string | undefined;
  if (event.topic !== undefined) {
    // A topic change: consent to one topic, recorded under its alias. Never global state.
    topic = resolveTopic(event.topic, policy.topicAliases ?? NO_TOPIC_ALIASES);
    key = evidenceKey(event.kind as 'unsubscribe' | 'subscribe', event.provider, event.eventId);
    // Kind, time, provider and event type only: a record can hold many topics, and SMTP detail says
    // nothing about consent, so topic entries stay small (~200 bytes) for the 400 KB item limit.
    const full = toEvidence(event, event.kind as 'unsubscribe' | 'subscribe');
    const entry: Evidence = { kind: full.kind, occurredAt: full.occurredAt, provider: full.provider };
    if (full.providerEventType !== undefined) entry.providerEventType = full.providerEventType;
    if (topic !== event.topic) entry.scope = event.topic;
    after.topics = unionTopics(before.topics, { [topic]: { [key]: entry } });
  } else if (event.kind === 'delivered') {
    after.lastDeliveredAt = maxDefined(before.lastDeliveredAt, t);
  } else if (event.kind === 'soft_bounce') {
    key = softBounceKey(event.provider, event.eventId);
    after.softBounces = unionEvidence(before.softBounces, { [key]: toEvidence(event, event.kind) });
  } else {
    key = evidenceKey(event.kind, event.provider, event.eventId);
    after.evidence = unionEvidence(before.evidence, { [key]: toEvidence(event, event.kind) });
  }
  const next = normalize(after, policy);
  const effect = topic === undefined ? effectOf(event, key, previous, next) : topicEffect(topic, key, previous, next);
  return result(record, next, effect);
}

/** The topic's status moved (or the topic is new), else evidence was added, else nothing. */
export function topicEffect(topic: string, key: string, previous: SuppressionRecord, next: SuppressionRecord): Effect {
  const before = previous.topics?.[topic];
  const after = next.topics[topic];
  if (after !== undefined && before?.status !== after.status)
    return after.status === 'unsubscribed' ? 'topic_unsubscribed' : 'topic_subscribed';
  return after !== undefined && Object.hasOwn(after.evidence, key) && !Object.hasOwn(before?.evidence ?? {}, key)
    ? 'evidence_added'
    : 'no_change';
}

function effectOf(event: NormalizedEvent, key: string, previous: SuppressionRecord, next: SuppressionRecord): Effect {
  if (previous.reactivatedAt !== undefined && event.occurredAt <= previous.reactivatedAt)
    return 'ignored_before_reactivation';
  if (previous.status !== 'suppressed' && next.status === 'suppressed') return 'suppressed';
  if (next.reasons.some((r) => !(previous.reasons ?? []).includes(r))) return 'reason_added';
  if (event.kind === 'delivered')
    return next.lastDeliveredAt !== previous.lastDeliveredAt ? 'delivery_recorded' : 'no_change';
  if (event.kind === 'soft_bounce') {
    if (Object.hasOwn(next.softBounces, key) && !Object.hasOwn(previous.softBounces ?? {}, key))
      return 'soft_bounce_counted';
    if (next.lastDeliveredAt !== undefined && event.occurredAt <= next.lastDeliveredAt) return 'superseded_by_delivery';
    return 'no_change';
  }
  return Object.hasOwn(next.evidence, key) && !Object.hasOwn(previous.evidence ?? {}, key)
    ? 'evidence_added'
    : 'no_change';
}

function assertActionable(
  event: NormalizedEvent,
): asserts event is NormalizedEvent & { kind: Exclude<NormalizedEvent['kind'], 'ignored'> } {
  if (!(EVENT_KINDS as readonly string[]).includes(event.kind)) throw new TypeError(`unknown event kind`);
  if (event.kind === 'ignored') throw new TypeError('ignored events never reach the suppression ratchet');
  if (typeof event.provider !== 'string' || event.provider === '') throw new TypeError('event has no provider');
  if (typeof event.eventId !== 'string' || event.eventId === '') throw new TypeError('event has no eventId');
  if (typeof event.recipient !== 'string' || event.recipient === '') throw new TypeError('event has no recipient');
  if (typeof event.occurredAt !== 'number' || !Number.isFinite(event.occurredAt))
    throw new TypeError('event has no occurredAt');
  if (event.messageId !== undefined && !isMessageId(event.messageId))
    throw new TypeError('event messageId is not a message id');
  if (event.kind === 'subscribe' && event.topic === undefined) throw new TypeError('a subscribe event needs a topic');
  if (event.topic !== undefined) {
    if (event.kind !== 'unsubscribe' && event.kind !== 'subscribe')
      throw new TypeError('only unsubscribe and subscribe events have a topic');
    if (!isTopicName(event.topic)) throw new TypeError('event topic is not a topic name');
  }
}

/** Evidence keeps the small, human-useful part of the detail; the raw payload stays in the inbox. */
export function toEvidence(event: NormalizedEvent, kind: EvidenceKind): Evidence {
  const entry: Evidence = { kind, occurredAt: event.occurredAt, provider: event.provider };
  const d = event.detail ?? {};
  for (const field of DETAIL_STRING_FIELDS) {
    const value = d[field];
    if (typeof value === 'string' && value !== '')
      entry[field] = clip(value, field === 'diagnosticCode' ? DIAGNOSTIC_MAX : CODE_MAX);
  }
  if (typeof d.echo === 'boolean') entry.echo = d.echo;
  if (event.messageId !== undefined) entry.messageId = event.messageId;
  return entry;
}
