/**
 * The provider-scope mapping table (README, "Topics: which provider events are scoped"), row by row:
 * each provider scope → its canonical topic name, what stays global, event ids unique per topic
 * change, and the demo signers producing exactly those payloads.
 */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { genericEvent } from '../../../lambdas/core/providers/generic/map.js';
import { classifyMailgunEvent } from '../../../lambdas/core/providers/mailgun/map.js';
import { postmarkEvent } from '../../../lambdas/core/providers/postmark/map.js';
import { classifySendgridEvent } from '../../../lambdas/core/providers/sendgrid/map.js';
import { sesEventsFromMessage } from '../../../lambdas/core/providers/ses/map.js';
import { standardWebhookEvents } from '../../../lambdas/core/providers/standard-webhooks/map.js';
import { sampleGenericEvent } from '../../../lib/demo/generic.js';
import { findDemoSigner, resolveDemoTopic } from '../../../lib/demo/index.js';
import { sampleMailgunEventData } from '../../../lib/demo/mailgun.js';
import { samplePostmarkRecord } from '../../../lib/demo/postmark.js';
import { sampleSendgridEvent } from '../../../lib/demo/sendgrid.js';
import { sesDemoPayload } from '../../../lib/demo/ses.js';
import { sampleStandardEvent } from '../../../lib/demo/standard-webhooks.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const EMAIL = 'reader@example.com';

const ses = (payload: object) =>
  sesEventsFromMessage(JSON.stringify(payload), {
    provider: 'ses',
    snsMessageId: 'm-1',
    snsTimestampMs: NOW,
    raw: '{}',
  });
const standard = (body: Record<string, unknown>) => standardWebhookEvents(body, '{}', 'msg_1', NOW);
const generic = (body: Record<string, unknown>) =>
  genericEvent({ id: 'e1', recipient: EMAIL, ...body }, '{}', 'e1', NOW);

describe('SendGrid', () => {
  it('group_unsubscribe / group_resubscribe → sendgrid:group:<asm_group_id>', () => {
    expect(classifySendgridEvent('group_unsubscribe', { asm_group_id: 4242 })).toMatchObject({
      kind: 'unsubscribe',
      topic: 'sendgrid:group:4242',
    });
    expect(classifySendgridEvent('group_resubscribe', { asm_group_id: 4242 })).toMatchObject({
      kind: 'subscribe',
      topic: 'sendgrid:group:4242',
    });
  });

  it('unsubscribe stays global even when the event carries an asm_group_id', () => {
    expect(classifySendgridEvent('unsubscribe', { asm_group_id: 4242 })).not.toHaveProperty('topic');
  });

  it('a group_unsubscribe whose group cannot be named is global, never dropped', () => {
    for (const id of [undefined, -1, 1.5, '', 'a b']) {
      const c = classifySendgridEvent('group_unsubscribe', { asm_group_id: id });
      expect(c.kind).toBe('unsubscribe');
      expect(c).not.toHaveProperty('topic');
    }
  });

  it('the demo signs group_unsubscribe / group_resubscribe with a numeric asm_group_id', () => {
    const out = sampleSendgridEvent('unsubscribe', EMAIL, NOW, { topic: '4242' });
    expect(out).toMatchObject({ event: 'group_unsubscribe', asm_group_id: 4242 });
    expect(
      classifySendgridEvent('group_resubscribe', sampleSendgridEvent('subscribe', EMAIL, NOW, { topic: '7' })),
    ).toMatchObject({ topic: 'sendgrid:group:7' });
    expect(() => sampleSendgridEvent('subscribe', EMAIL, NOW)).toThrow(/--group/);
    expect(() => sampleSendgridEvent('unsubscribe', EMAIL, NOW, { topic: 'news' })).toThrow(/numeric/);
  });
});

describe('SES Subscription', () => {
  const payload = (prefs: object, list = 'main') => ({
    eventType: 'Subscription',
    mail: { timestamp: '2026-03-01T11:00:00Z', destination: [EMAIL] },
    subscription: {
      contactList: list,
      timestamp: '2026-03-01T11:59:00Z',
      source: 'UnsubscribeLink',
      newTopicPreferences: prefs,
    },
  });

  it('one change per topicSubscriptionStatus entry, ses:<contactList>:<topicName>, ids unique per change', () => {
    const events = ses(
      payload({
        unsubscribeAll: false,
        topicSubscriptionStatus: [
          { topicName: 'weekly', subscriptionStatus: 'OptOut' },
          { topicName: 'offers', subscriptionStatus: 'OptIn' },
        ],
      }),
    );
    expect(events.map((e) => [e.kind, e.topic, e.eventId])).toEqual([
      ['unsubscribe', 'ses:main:weekly', `m-1:${EMAIL}:ses:main:weekly`],
      ['subscribe', 'ses:main:offers', `m-1:${EMAIL}:ses:main:offers`],
    ]);
    expect(events.every((e) => e.occurredAt === Date.parse('2026-03-01T11:59:00Z'))).toBe(true);
  });

  it('unsubscribeAll: true is a global unsubscribe (keeping its old event id), besides the topic entries', () => {
    const events = ses(
      payload({
        unsubscribeAll: true,
        topicSubscriptionStatus: [{ topicName: 'weekly', subscriptionStatus: 'OptOut' }],
      }),
    );
    expect(events.map((e) => [e.kind, e.topic, e.eventId])).toEqual([
      ['unsubscribe', undefined, `m-1:${EMAIL}`],
      ['unsubscribe', 'ses:main:weekly', `m-1:${EMAIL}:ses:main:weekly`],
    ]);
  });

  it('a topic listed twice keeps its opt-out; an OptOut that cannot be named is global; its OptIn is dropped', () => {
    const twice = ses(
      payload({
        topicSubscriptionStatus: [
          { topicName: 'w', subscriptionStatus: 'OptIn' },
          { topicName: 'w', subscriptionStatus: 'OptOut' },
        ],
      }),
    );
    expect(twice.map((e) => [e.kind, e.topic])).toEqual([['unsubscribe', 'ses:main:w']]);
    const unnamed = ses(
      payload({
        topicSubscriptionStatus: [
          { topicName: 'a b', subscriptionStatus: 'OptOut' },
          { topicName: 'c d', subscriptionStatus: 'OptIn' },
        ],
      }),
    );
    expect(unnamed.map((e) => [e.kind, e.topic])).toEqual([['unsubscribe', undefined]]);
  });

  it('the demo signs a topic OptOut / OptIn (list ratchet-demo unless given) and a global unsubscribeAll', () => {
    expect(ses(sesDemoPayload('unsubscribe', EMAIL, NOW, { topic: 'weekly' })).map((e) => [e.kind, e.topic])).toEqual([
      ['unsubscribe', 'ses:ratchet-demo:weekly'],
    ]);
    expect(
      ses(sesDemoPayload('subscribe', EMAIL, NOW, { topic: 'main:weekly' })).map((e) => [e.kind, e.topic]),
    ).toEqual([['subscribe', 'ses:main:weekly']]);
    expect(ses(sesDemoPayload('unsubscribe', EMAIL, NOW)).map((e) => [e.kind, e.topic])).toEqual([
      ['unsubscribe', undefined],
    ]);
  });
});

describe('Postmark SubscriptionChange', () => {
  const record = (fields: object) => ({
    RecordType: 'SubscriptionChange',
    MessageID: null,
    ServerID: 1,
    MessageStream: 'broadcast',
    ChangedAt: '2026-03-01T11:00:00Z',
    Recipient: EMAIL,
    Origin: 'Recipient',
    SuppressSending: true,
    SuppressionReason: 'ManualSuppression',
    ...fields,
  });

  it.each(['Recipient', 'Customer', 'Admin'])(
    'ManualSuppression (Origin %s) → postmark:stream:<MessageStream>',
    (origin) => {
      expect(postmarkEvent(record({ Origin: origin }), '{}')).toMatchObject({
        kind: 'unsubscribe',
        topic: 'postmark:stream:broadcast',
      });
    },
  );

  it('a reactivation → subscribe to the stream; HardBounce and SpamComplaint stay global', () => {
    const back = postmarkEvent(record({ SuppressSending: false, SuppressionReason: null }), '{}');
    expect(back).toMatchObject({ kind: 'subscribe', topic: 'postmark:stream:broadcast' });
    expect(back.eventId).not.toBe(postmarkEvent(record({}), '{}').eventId);
    for (const [reason, kind] of [
      ['HardBounce', 'hard_bounce'],
      ['SpamComplaint', 'complaint'],
    ]) {
      const event = postmarkEvent(record({ SuppressionReason: reason }), '{}');
      expect(event.kind).toBe(kind);
      expect(event).not.toHaveProperty('topic');
    }
  });

  it('the demo signs the stream it is given', () => {
    expect(postmarkEvent(samplePostmarkRecord('unsubscribe', EMAIL, NOW, { topic: 'broadcast' }), '{}')).toMatchObject({
      topic: 'postmark:stream:broadcast',
    });
    expect(postmarkEvent(samplePostmarkRecord('subscribe', EMAIL, NOW, { topic: 'broadcast' }), '{}')).toMatchObject({
      kind: 'subscribe',
    });
  });
});

describe('Resend contact.topics.updated', () => {
  const topics = (list: unknown) => ({
    type: 'contact.topics.updated',
    created_at: '2026-02-12T10:00:00.000Z',
    data: { email: 'Steve@Example.com', topics: list },
  });

  it('one change per topic entry → resend:topic:<id>, ids unique per change', () => {
    const events = standard(
      topics([
        { id: 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e', subscription: 'opt_in' },
        { id: '07d84122-7224-4881-9c31-1c048e204602', subscription: 'opt_out' },
      ]),
    );
    expect(events.map((e) => [e.kind, e.topic, e.eventId, e.recipient])).toEqual([
      [
        'subscribe',
        'resend:topic:b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
        'msg_1:steve@example.com:resend:topic:b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
        'steve@example.com',
      ],
      [
        'unsubscribe',
        'resend:topic:07d84122-7224-4881-9c31-1c048e204602',
        'msg_1:steve@example.com:resend:topic:07d84122-7224-4881-9c31-1c048e204602',
        'steve@example.com',
      ],
    ]);
    expect(events[0]!.occurredAt).toBe(Date.parse('2026-02-12T10:00:00.000Z'));
  });

  it('nothing usable → one ignored event; contact.updated with unsubscribed: true stays global', () => {
    expect(standard(topics([{ id: 'x', subscription: 'maybe' }]))).toMatchObject([{ kind: 'ignored' }]);
    expect(standard(topics('nope'))).toMatchObject([{ kind: 'ignored' }]);
    const [global] = standard({
      type: 'contact.updated',
      created_at: '2026-02-12T10:00:00Z',
      data: { email: EMAIL, unsubscribed: true },
    });
    expect(global!.kind).toBe('unsubscribe');
    expect(global).not.toHaveProperty('topic');
  });

  it('the demo signs a topic opt-out / opt-in', () => {
    expect(standard(sampleStandardEvent('unsubscribe', EMAIL, NOW, { topic: 't-1' }))).toMatchObject([
      { kind: 'unsubscribe', topic: 'resend:topic:t-1' },
    ]);
    expect(standard(sampleStandardEvent('subscribe', EMAIL, NOW, { topic: 't-1' }))).toMatchObject([
      { kind: 'subscribe', topic: 'resend:topic:t-1' },
    ]);
  });
});

describe('Mailgun', () => {
  it('unsubscribed stays global: the webhook does not say which link was used; the demo has no topics', () => {
    expect(classifyMailgunEvent('unsubscribed', { tags: ['newsletter'] })).not.toHaveProperty('topic');
    expect(() => sampleMailgunEventData('subscribe', EMAIL, NOW)).toThrow(/no topics|needs/);
  });
});

describe('the generic contract', () => {
  it('topic is optional on unsubscribe (absent or null: global) and required on subscribe', () => {
    expect(generic({ type: 'unsubscribe', topic: 'newsletter' })).toMatchObject({
      kind: 'unsubscribe',
      topic: 'newsletter',
    });
    expect(generic({ type: 'unsubscribe' })).not.toHaveProperty('topic');
    expect(generic({ type: 'unsubscribe', topic: null })).not.toHaveProperty('topic');
    expect(generic({ type: 'subscribe', topic: 'newsletter' })).toMatchObject({
      kind: 'subscribe',
      topic: 'newsletter',
    });
  });

  it.each([
    ['subscribe without a topic', { type: 'subscribe' }],
    ['a topic on a hard bounce', { type: 'hard_bounce', topic: 'newsletter' }],
    ['a topic with a space', { type: 'unsubscribe', topic: 'my list' }],
    ['a topic that is not a string', { type: 'unsubscribe', topic: 42 }],
    ['a topic over 128 characters', { type: 'unsubscribe', topic: 'x'.repeat(129) }],
  ])('400s %s', (_what, body) => {
    expect(() => generic(body)).toThrow(MalformedRequestError);
  });

  it('the demo adds the topic it is given', () => {
    expect(sampleGenericEvent('subscribe', EMAIL, NOW, 'e1', { topic: 'news' })).toMatchObject({
      type: 'subscribe',
      topic: 'news',
    });
  });
});

describe('send: the topic vocabulary for the CLI', () => {
  it('maps group-unsubscribe / group-resubscribe with --group for SendGrid, --topic elsewhere', () => {
    const sendgrid = findDemoSigner('sendgrid')!;
    expect(resolveDemoTopic(sendgrid, 'group-unsubscribe', { group: '4242' })).toEqual({
      kind: 'unsubscribe',
      options: { topic: '4242' },
    });
    expect(resolveDemoTopic(sendgrid, 'group-resubscribe', { group: '4242' })).toEqual({
      kind: 'subscribe',
      options: { topic: '4242' },
    });
    expect(resolveDemoTopic(findDemoSigner('ses')!, 'unsubscribe', { topic: 'weekly' })).toEqual({
      kind: undefined,
      options: { topic: 'weekly' },
    });
    expect(() => resolveDemoTopic(sendgrid, 'group-unsubscribe', {})).toThrow(/--group/);
    expect(() => resolveDemoTopic(findDemoSigner('ses')!, 'group-unsubscribe', { topic: 'x' })).toThrow(/SendGrid/);
    expect(() => resolveDemoTopic(findDemoSigner('mailgun')!, 'unsubscribe', { topic: 'x' })).toThrow(/no topic/);
    expect(() => resolveDemoTopic(sendgrid, 'unsubscribe', { topic: 'x' })).toThrow(/--group/);
  });
});
