/**
 * The exact shape of what map.ts returns and why: the reason text of every unreadable SES document
 * (the edge logs it), the topic-preference rules entry by entry, and the event object's own keys.
 */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { notificationEvents } from '../../../lambdas/core/providers/ses/index.js';
import { sesEventsFromMessage } from '../../../lambdas/core/providers/ses/map.js';

const SNS_TS = Date.parse('2026-03-01T12:00:00.000Z');
const MAIL_TS = '2026-03-01T11:58:00.000Z';
const context = { provider: 'ses', snsMessageId: 'sns-1', snsTimestampMs: SNS_TS, raw: '{"the":"body"}' };
const mail = (destination: unknown[] = ['reader@example.com']) => ({
  timestamp: MAIL_TS,
  messageId: 'm',
  source: 'from@example.com',
  destination,
});
const events = (payload: unknown) => sesEventsFromMessage(JSON.stringify(payload), context);
/** The single ignored event the provider turns an unreadable SES message into. */
const unreadable = (payload: unknown) => notificationEvents(JSON.stringify(payload), 'sns-1', SNS_TS, '{"the":"body"}');
const reasonFor = (payload: unknown) => {
  const out = unreadable(payload);
  expect(out).toHaveLength(1);
  expect(out[0]).toMatchObject({ kind: 'ignored', recipient: '', eventId: 'sns-1:' });
  return out[0]!.ignoredReason;
};

describe('unreadable SES documents: the reason names the missing part', () => {
  it.each([
    ['Bounce', 'bounce'],
    ['Complaint', 'complaint'],
    ['Delivery', 'delivery'],
    ['Subscription', 'subscription'],
  ])('%s without its %s object', (type, object) => {
    expect(reasonFor({ notificationType: type, mail: mail() })).toBe(
      `unreadable SES message: SES ${object} is missing or not an object`,
    );
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not a string', 5],
  ])('a bounce whose bounceType is %s', (_why, bounceType) => {
    const payload = {
      notificationType: 'Bounce',
      bounce: { bounceType, bouncedRecipients: [{ emailAddress: 'a@example.com' }] },
      mail: mail(),
    };
    expect(reasonFor(payload)).toBe('unreadable SES message: SES bounce.bounceType is missing or not a string');
  });

  it.each([
    ['Bounce', { bounce: { bounceType: 'Permanent', bouncedRecipients: [] } }, 'bounce.bouncedRecipients'],
    ['Complaint', { complaint: { complainedRecipients: [] } }, 'complaint.complainedRecipients'],
    ['Delivery', { delivery: { recipients: [] } }, 'delivery.recipients'],
  ])('%s with an empty recipient list', (type, body, what) => {
    expect(reasonFor({ notificationType: type, ...body, mail: mail() })).toBe(
      `unreadable SES message: SES ${what} is missing or empty`,
    );
  });

  it('a subscription change for nobody (no mail.destination)', () => {
    const payload = {
      eventType: 'Subscription',
      subscription: { contactList: 'news', newTopicPreferences: { unsubscribeAll: true } },
    };
    expect(() => events(payload)).toThrow(new MalformedRequestError('SES mail.destination is missing or empty'));
    expect(reasonFor(payload)).toBe('unreadable SES message: SES mail.destination is missing or empty');
  });
});

describe('publishing styles', () => {
  it('reads configuration-set publishing (eventType only, no notificationType)', () => {
    const out = events({ eventType: 'Delivery', delivery: { recipients: ['a@example.com'] }, mail: mail() });
    expect(out.map((e) => [e.kind, e.recipient])).toEqual([['delivered', 'a@example.com']]);
  });

  it('reads a message that carries both fields when they agree', () => {
    const out = events({
      eventType: 'Delivery',
      notificationType: 'Delivery',
      delivery: { recipients: ['a@example.com'] },
      mail: mail(),
    });
    expect(out.map((e) => [e.kind, e.recipient])).toEqual([['delivered', 'a@example.com']]);
  });

  it('reads identity notifications (notificationType only, no eventType)', () => {
    const out = events({ notificationType: 'Delivery', delivery: { recipients: ['a@example.com'] }, mail: mail() });
    expect(out.map((e) => [e.kind, e.recipient])).toEqual([['delivered', 'a@example.com']]);
  });
});

describe('unknown and acknowledged-only types', () => {
  it('without mail: no recipient, the SNS time', () => {
    expect(events({ eventType: 'BrandNew' })).toStrictEqual([
      {
        provider: 'ses',
        eventId: 'sns-1:',
        recipient: '',
        kind: 'ignored',
        ignoredReason: 'unrecognized SES event type',
        occurredAt: SNS_TS,
        detail: { providerEventType: 'BrandNew' },
        raw: '{"the":"body"}',
      },
    ]);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'a type named after an Object.prototype member (%s) is unknown: a string reason, the SNS time',
    (eventType) => {
      const [event] = events({ eventType, '': { timestamp: '2020-01-01T00:00:00Z' } });
      expect(event).toMatchObject({
        kind: 'ignored',
        ignoredReason: 'unrecognized SES event type',
        occurredAt: SNS_TS,
      });
    },
  );

  it('an unknown type never takes its time from a top-level "" key', () => {
    const [event] = events({ eventType: 'BrandNew', '': { timestamp: '2020-01-01T00:00:00Z' } });
    expect(event!.occurredAt).toBe(SNS_TS);
  });

  it('a known ignored type takes its time from its own object', () => {
    const [event] = events({ eventType: 'Open', open: { timestamp: '2026-03-01T11:59:30.000Z' }, mail: mail() });
    expect(event).toMatchObject({
      recipient: 'reader@example.com',
      ignoredReason: 'engagement event',
      occurredAt: Date.parse('2026-03-01T11:59:30.000Z'),
    });
  });
});

describe('event object keys', () => {
  it('an outcome event has neither ignoredReason nor topic keys', () => {
    const [event] = events({ eventType: 'Delivery', delivery: { recipients: ['a@example.com'] }, mail: mail() });
    expect(Object.keys(event!).sort()).toEqual([
      'detail',
      'eventId',
      'kind',
      'messageId',
      'occurredAt',
      'provider',
      'raw',
      'recipient',
      'sender',
    ]);
    expect(event!.messageId).toBe('m');
    // Without a usable mail.messageId there is no key at all, not one holding undefined.
    for (const messageId of [undefined, '', 'two words']) {
      const [alone] = events({
        eventType: 'Delivery',
        delivery: { recipients: ['a@example.com'] },
        mail: { ...mail(), messageId },
      });
      expect(Object.keys(alone!)).not.toContain('messageId');
    }
  });
});

describe('subscription preferences, entry by entry', () => {
  const subscription = (newTopicPreferences: unknown, destination: unknown[] = ['reader@example.com']) => ({
    eventType: 'Subscription',
    mail: mail(destination),
    subscription: { contactList: 'news', timestamp: '2026-03-01T10:00:00.000Z', newTopicPreferences },
  });
  const changes = (prefs: unknown, destination?: unknown[]) =>
    events(subscription(prefs, destination)).map((e) => [e.kind, e.recipient, e.eventId, e.topic, e.ignoredReason]);
  const NOTHING = [
    [
      'ignored',
      'reader@example.com',
      'sns-1:reader@example.com',
      undefined,
      'subscription change without an opt-out or a topic',
    ],
  ];

  it('no newTopicPreferences at all is no change', () => {
    expect(changes(undefined)).toEqual(NOTHING);
    expect(changes('unsubscribeAll')).toEqual(NOTHING);
  });

  it('a topicSubscriptionStatus that is not a list is no change', () => {
    expect(changes({ topicSubscriptionStatus: { topicName: 'a', subscriptionStatus: 'OptOut' } })).toEqual(NOTHING);
  });

  it('skips entries that are not objects', () => {
    expect(
      changes({ topicSubscriptionStatus: [null, 'OptOut', { topicName: 'a', subscriptionStatus: 'OptOut' }] }),
    ).toEqual([['unsubscribe', 'reader@example.com', 'sns-1:reader@example.com:ses:news:a', 'ses:news:a', undefined]]);
  });

  it('skips a status other than OptIn / OptOut', () => {
    expect(changes({ topicSubscriptionStatus: [{ topicName: 'a', subscriptionStatus: 'Pending' }] })).toEqual(NOTHING);
  });

  it('an OptOut for a topic it cannot name becomes a global unsubscribe', () => {
    expect(changes({ topicSubscriptionStatus: [{ subscriptionStatus: 'OptOut' }] })).toEqual([
      ['unsubscribe', 'reader@example.com', 'sns-1:reader@example.com', undefined, undefined],
    ]);
  });

  it('an OptIn for a topic it cannot name is dropped', () => {
    expect(changes({ topicSubscriptionStatus: [{ subscriptionStatus: 'OptIn' }] })).toEqual(NOTHING);
  });

  it('a topic listed twice keeps its OptOut, whichever comes first', () => {
    const expected = [
      ['unsubscribe', 'reader@example.com', 'sns-1:reader@example.com:ses:news:a', 'ses:news:a', undefined],
    ];
    const entries = [
      { topicName: 'a', subscriptionStatus: 'OptOut' },
      { topicName: 'a', subscriptionStatus: 'OptIn' },
    ];
    expect(changes({ topicSubscriptionStatus: entries })).toEqual(expected);
    expect(changes({ topicSubscriptionStatus: [...entries].reverse() })).toEqual(expected);
  });

  it('a topic change for an unusable address is ignored without a topic', () => {
    const out = events(
      subscription({ topicSubscriptionStatus: [{ topicName: 'a', subscriptionStatus: 'OptOut' }] }, ['not-an-address']),
    );
    expect(out).toStrictEqual([
      {
        provider: 'ses',
        eventId: 'sns-1:',
        recipient: '',
        kind: 'ignored',
        ignoredReason: 'recipient is not an email address',
        occurredAt: Date.parse('2026-03-01T10:00:00.000Z'),
        detail: { providerEventType: 'Subscription' },
        raw: '{"the":"body"}',
      },
    ]);
  });
});
