/**
 * Resend's contact.topics.updated, edge by edge: an opt-out whose topic cannot be named (global, never
 * lost), an opt-in whose topic cannot be named (dropped), the same topic twice (opt-out wins), and the
 * two ways nothing actionable remains (no usable change, no usable recipient), each with its reason.
 */
import { describe, expect, it } from 'vitest';
import { INVALID_RECIPIENT_REASON } from '../../../lambdas/core/classification.js';
import { standardWebhookEvents } from '../../../lambdas/core/providers/standard-webhooks/map.js';

const SIGNED_AT_MS = Date.parse('2026-03-01T12:00:00Z');
const CREATED_AT = '2026-02-12T10:00:00.000Z';
const RAW = '{"raw":"body"}';
const TOPIC_ID = 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e';
const TOPIC = `resend:topic:${TOPIC_ID}`;
const DETAIL = { providerEventType: 'contact.topics.updated' };

function topicsUpdated(topics: unknown, email: unknown = 'Steve@Example.com') {
  return standardWebhookEvents(
    { type: 'contact.topics.updated', created_at: CREATED_AT, data: { email, topics } },
    RAW,
    'msg_1',
    SIGNED_AT_MS,
  );
}

describe('an opt-out whose topic id cannot make a topic name', () => {
  it.each([
    ['no id', { subscription: 'opt_out' }],
    ['an empty id', { id: '', subscription: 'opt_out' }],
    ['an id with a space', { id: 'a b', subscription: 'opt_out' }],
    ['a negative number', { id: -1, subscription: 'opt_out' }],
  ])('with %s is a global unsubscribe: eventId `${webhook-id}:${recipient}`, no topic key', (_, entry) => {
    const events = topicsUpdated([entry]);
    expect(events).toStrictEqual([
      {
        provider: 'standard',
        eventId: 'msg_1:steve@example.com',
        recipient: 'steve@example.com',
        kind: 'unsubscribe',
        occurredAt: Date.parse(CREATED_AT),
        detail: DETAIL,
        raw: RAW,
      },
    ]);
  });

  it('sits next to the named changes of the same request, one event each', () => {
    const events = topicsUpdated([
      { id: 'a b', subscription: 'opt_out' },
      { id: TOPIC_ID, subscription: 'opt_in' },
    ]);
    expect(events.map((e) => [e.kind, e.eventId, e.topic])).toEqual([
      ['unsubscribe', 'msg_1:steve@example.com', undefined],
      ['subscribe', `msg_1:steve@example.com:${TOPIC}`, TOPIC],
    ]);
    expect(events[0]).not.toHaveProperty('topic');
  });
});

describe('an opt-in whose topic id cannot make a topic name', () => {
  it('is dropped, never turned into a global subscribe: nothing usable remains', () => {
    expect(topicsUpdated([{ id: 'a b', subscription: 'opt_in' }])).toEqual([
      {
        provider: 'standard',
        eventId: 'msg_1',
        recipient: '',
        kind: 'ignored',
        ignoredReason: 'contact.topics.updated without a usable topic change',
        occurredAt: expect.any(Number),
        detail: DETAIL,
        raw: RAW,
      },
    ]);
  });

  it('does not disturb a named change beside it', () => {
    const events = topicsUpdated([{ subscription: 'opt_in' }, { id: TOPIC_ID, subscription: 'opt_out' }]);
    expect(events.map((e) => [e.kind, e.eventId, e.topic])).toEqual([
      ['unsubscribe', `msg_1:steve@example.com:${TOPIC}`, TOPIC],
    ]);
  });
});

describe('the same topic twice in one request', () => {
  it('opt-out then opt-in: the opt-out wins (unsubscribe is the safe side)', () => {
    const events = topicsUpdated([
      { id: TOPIC_ID, subscription: 'opt_out' },
      { id: TOPIC_ID, subscription: 'opt_in' },
    ]);
    expect(events.map((e) => [e.kind, e.topic, e.eventId])).toEqual([
      ['unsubscribe', TOPIC, `msg_1:steve@example.com:${TOPIC}`],
    ]);
  });

  it('opt-in then opt-out: the opt-out wins too', () => {
    const events = topicsUpdated([
      { id: TOPIC_ID, subscription: 'opt_in' },
      { id: TOPIC_ID, subscription: 'opt_out' },
    ]);
    expect(events.map((e) => [e.kind, e.topic])).toEqual([['unsubscribe', TOPIC]]);
  });

  it('opt-in twice: one subscribe', () => {
    const events = topicsUpdated([
      { id: TOPIC_ID, subscription: 'opt_in' },
      { id: TOPIC_ID, subscription: 'opt_in' },
    ]);
    expect(events.map((e) => [e.kind, e.topic])).toEqual([['subscribe', TOPIC]]);
  });
});

describe('a named change', () => {
  it('is the whole event: exact fields, the topic, the envelope time, the detail', () => {
    expect(topicsUpdated([{ id: TOPIC_ID, subscription: 'opt_in' }])).toStrictEqual([
      {
        provider: 'standard',
        eventId: `msg_1:steve@example.com:${TOPIC}`,
        recipient: 'steve@example.com',
        kind: 'subscribe',
        occurredAt: Date.parse(CREATED_AT),
        detail: DETAIL,
        raw: RAW,
        topic: TOPIC,
      },
    ]);
  });

  it('falls back to the signed time when the body carries none', () => {
    const events = standardWebhookEvents(
      {
        type: 'contact.topics.updated',
        data: { email: 'steve@example.com', topics: [{ id: TOPIC_ID, subscription: 'opt_out' }] },
      },
      RAW,
      'msg_1',
      SIGNED_AT_MS,
    );
    expect(events.map((e) => e.occurredAt)).toEqual([SIGNED_AT_MS]);
  });
});

describe('nothing actionable: one ignored event keyed on the webhook id, with the reason', () => {
  it.each([
    ['no topics at all', undefined],
    ['topics that is not a list', 'nope'],
    ['an empty list', []],
    ['entries that are not objects', ['opt_out', 7, null]],
    ['an unknown subscription value', [{ id: TOPIC_ID, subscription: 'maybe' }]],
  ])('%s → "without a usable topic change"', (_, topics) => {
    expect(topicsUpdated(topics)).toEqual([
      {
        provider: 'standard',
        eventId: 'msg_1',
        recipient: '',
        kind: 'ignored',
        ignoredReason: 'contact.topics.updated without a usable topic change',
        occurredAt: expect.any(Number),
        detail: DETAIL,
        raw: RAW,
      },
    ]);
  });

  it.each([
    ['not an address', 'not an address'],
    ['null', null],
    ['a number', 42],
  ])('a usable change for an email that is %s → the invalid-recipient reason', (_, email) => {
    expect(topicsUpdated([{ id: TOPIC_ID, subscription: 'opt_out' }], email)).toEqual([
      {
        provider: 'standard',
        eventId: 'msg_1',
        recipient: '',
        kind: 'ignored',
        ignoredReason: INVALID_RECIPIENT_REASON,
        occurredAt: expect.any(Number),
        detail: DETAIL,
        raw: RAW,
      },
    ]);
  });
});
