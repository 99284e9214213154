/** SES document → normalized events (the Message inside a verified SNS Notification). */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { notificationEvents } from '../../../lambdas/core/providers/ses/index.js';
import {
  CONFLICTING_TYPES_REASON,
  NOT_SES_REASON,
  sesEventsFromMessage,
} from '../../../lambdas/core/providers/ses/map.js';
import { makeProvider, notificationFields, signed, toRequest } from './fixtures.js';

const SNS_TS = Date.parse('2026-03-01T12:00:00.000Z');
const context = { provider: 'ses', snsMessageId: 'sns-1', snsTimestampMs: SNS_TS, raw: '{"the":"body"}' };
const mail = (destination: unknown[] = ['to@example.com'], timestamp: unknown = '2018-10-08T14:05:45 +0000') => ({
  timestamp,
  messageId: 'ses-mail-1',
  source: 'from@example.com',
  destination,
});
const events = (payload: unknown) => sesEventsFromMessage(JSON.stringify(payload), context);

describe('SES bounces', () => {
  const bounce = (
    bounceType: string,
    bounceSubType: string,
    recipients: unknown[] = [{ emailAddress: 'A@Example.com' }],
  ) => ({
    notificationType: 'Bounce',
    bounce: {
      bounceType,
      bounceSubType,
      bouncedRecipients: recipients,
      timestamp: '2026-03-01T11:59:00.000Z',
      feedbackId: 'f',
    },
    mail: mail(),
  });

  it('maps Permanent to hard_bounce with full detail', () => {
    const [event] = events(
      bounce('Permanent', 'General', [
        {
          emailAddress: ' A@Example.COM ',
          status: '5.1.1',
          diagnosticCode: 'smtp; 550 5.1.1 user unknown',
          action: 'failed',
        },
      ]),
    );
    expect(event).toEqual({
      provider: 'ses',
      eventId: 'sns-1:a@example.com',
      recipient: 'a@example.com',
      kind: 'hard_bounce',
      occurredAt: Date.parse('2026-03-01T11:59:00.000Z'),
      detail: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 user unknown',
        providerEventType: 'Bounce',
      },
      messageId: 'ses-mail-1',
      raw: '{"the":"body"}',
      // `mail.source` is from@example.com, and no `ses:from-domain` tag says otherwise.
      sender: 'example.com',
    });
  });

  it.each([
    ['Transient', 'MailboxFull'],
    ['Transient', 'General'],
    ['Undetermined', 'Undetermined'],
  ])('maps %s/%s to soft_bounce', (type, subType) => {
    expect(events(bounce(type, subType))[0]!.kind).toBe('soft_bounce');
  });

  it('maps an unknown bounceType to soft_bounce (never a permanent suppression on a guess)', () => {
    expect(events(bounce('SomethingNew', 'General'))[0]!.kind).toBe('soft_bounce');
  });

  it('leaves empty and non-string detail fields out, as every provider does (stringField)', () => {
    const [event] = events(
      bounce('Permanent', '', [{ emailAddress: 'a@example.com', status: '', diagnosticCode: 42 }]),
    );
    expect(event!.detail).toEqual({ bounceType: 'Permanent', providerEventType: 'Bounce' });
  });

  it('keeps an unknown bounceSubType as data', () => {
    const [event] = events(bounce('Permanent', 'OnTenantSuppressionList'));
    expect(event!.kind).toBe('hard_bounce');
    expect(event!.detail.bounceSubType).toBe('OnTenantSuppressionList');
  });

  it.each(['Suppressed', 'OnAccountSuppressionList'])('marks %s bounces as echoes of a suppression list', (subType) => {
    expect(events(bounce('Permanent', subType))[0]!.detail.echo).toBe(true);
  });

  it('emits one event per bounced recipient, keyed by SNS MessageId and recipient', () => {
    const out = events(
      bounce('Permanent', 'General', [{ emailAddress: 'a@example.com' }, { emailAddress: 'b@example.com' }]),
    );
    expect(out.map((e) => [e.eventId, e.recipient])).toEqual([
      ['sns-1:a@example.com', 'a@example.com'],
      ['sns-1:b@example.com', 'b@example.com'],
    ]);
  });

  it('drops a repeated recipient within one message (same event id)', () => {
    const out = events(
      bounce('Permanent', 'General', [{ emailAddress: 'a@example.com' }, { emailAddress: 'A@example.com' }]),
    );
    expect(out).toHaveLength(1);
  });

  it('turns an invalid recipient address into an ignored event instead of refusing the bounce', () => {
    expect(events(bounce('Permanent', 'General', [{ emailAddress: 'not-an-address' }]))).toEqual([
      expect.objectContaining({
        kind: 'ignored',
        recipient: '',
        eventId: 'sns-1:',
        ignoredReason: 'recipient is not an email address',
      }),
    ]);
  });

  it('keeps the valid recipients of a bounce with one garbage entry among three (never a 400 for all)', () => {
    const out = events(
      bounce('Permanent', 'General', [
        { emailAddress: 'one@example.com' },
        { emailAddress: '<<garbage>>' },
        7,
        { emailAddress: 'two@example.com' },
      ]),
    );
    expect(out.map((e) => [e.kind, e.recipient, e.eventId])).toEqual([
      ['hard_bounce', 'one@example.com', 'sns-1:one@example.com'],
      ['ignored', '', 'sns-1:'],
      ['hard_bounce', 'two@example.com', 'sns-1:two@example.com'],
    ]);
    expect(out[1]!.detail).toMatchObject({ bounceType: 'Permanent', providerEventType: 'Bounce' });
  });

  it('rejects a bounce without bouncedRecipients', () => {
    expect(() => events(bounce('Permanent', 'General', []))).toThrow(MalformedRequestError);
  });

  it('rejects a bounce without bounceType', () => {
    const payload = bounce('Permanent', 'General');
    delete (payload.bounce as Record<string, unknown>)['bounceType'];
    expect(() => events(payload)).toThrow(MalformedRequestError);
  });

  it('rejects a bounce object that is missing', () => {
    expect(() => events({ notificationType: 'Bounce', mail: mail() })).toThrow(MalformedRequestError);
  });

  it('reads the eventType form the same way', () => {
    const payload = { ...bounce('Permanent', 'General'), notificationType: undefined, eventType: 'Bounce' };
    expect(events(payload)[0]!.kind).toBe('hard_bounce');
  });
});

describe('event time', () => {
  it('falls back to mail.timestamp, parsed leniently (`2018-10-08T14:05:45 +0000`)', () => {
    const [event] = events({
      notificationType: 'Delivery',
      delivery: { recipients: ['to@example.com'] },
      mail: mail(),
    });
    expect(event!.occurredAt).toBe(Date.parse('2018-10-08T14:05:45Z'));
  });

  it('falls back to the SNS Timestamp when neither the event nor mail has one', () => {
    const [event] = events({ notificationType: 'Delivery', delivery: { recipients: ['to@example.com'] } });
    expect(event!.occurredAt).toBe(SNS_TS);
  });

  it('treats a timestamp that is present but not a time as absent (mail.timestamp, then the SNS time)', () => {
    const [viaMail] = events({
      notificationType: 'Delivery',
      delivery: { timestamp: 'soon', recipients: ['to@example.com'] },
      mail: mail(),
    });
    expect(viaMail).toMatchObject({ kind: 'delivered', occurredAt: Date.parse('2018-10-08T14:05:45Z') });
    const [viaSns] = events({
      notificationType: 'Delivery',
      delivery: { timestamp: 'soon', recipients: ['to@example.com'] },
      mail: mail(['to@example.com'], 'later'),
    });
    expect(viaSns).toMatchObject({ kind: 'delivered', occurredAt: SNS_TS });
  });
});

describe('SES complaints', () => {
  const complaint = (extra: Record<string, unknown> = {}) => ({
    notificationType: 'Complaint',
    complaint: {
      complainedRecipients: [{ emailAddress: 'a@example.com' }, { emailAddress: 'b@example.com' }],
      timestamp: '2026-03-01T11:00:00.000Z',
      feedbackId: 'f',
      ...extra,
    },
    mail: mail(),
  });

  it('emits one complaint per complained recipient, with the feedback type', () => {
    const out = events(complaint({ complaintFeedbackType: 'abuse' }));
    expect(out.map((e) => [e.kind, e.recipient, e.detail.complaintFeedbackType, e.detail.providerEventType])).toEqual([
      ['complaint', 'a@example.com', 'abuse', 'Complaint'],
      ['complaint', 'b@example.com', 'abuse', 'Complaint'],
    ]);
  });

  it('treats a complaint without a feedback report as a complaint', () => {
    expect(events(complaint())[0]!.kind).toBe('complaint');
  });

  it('ignores complaintFeedbackType not-spam, recording why', () => {
    const out = events(complaint({ complaintFeedbackType: 'not-spam' }));
    expect(out.map((e) => [e.kind, e.recipient, e.ignoredReason])).toEqual([
      ['ignored', 'a@example.com', 'complaint feedback type is not-spam'],
      ['ignored', 'b@example.com', 'complaint feedback type is not-spam'],
    ]);
  });

  it('marks an OnAccountSuppressionList complaint as an echo', () => {
    expect(events(complaint({ complaintSubType: 'OnAccountSuppressionList' }))[0]!.detail.echo).toBe(true);
  });

  it('ignores an invalid complained address and keeps the others', () => {
    const payload = complaint();
    (payload.complaint.complainedRecipients as unknown[]).push({ emailAddress: 'nope' });
    expect(events(payload).map((e) => [e.kind, e.recipient])).toEqual([
      ['complaint', 'a@example.com'],
      ['complaint', 'b@example.com'],
      ['ignored', ''],
    ]);
  });
});

describe('SES deliveries', () => {
  it('emits one delivered event per recipient', () => {
    const out = events({
      eventType: 'Delivery',
      delivery: {
        timestamp: '2026-03-01T11:00:00.000Z',
        recipients: ['a@example.com', 'B@example.com'],
        smtpResponse: '250 ok',
      },
      mail: mail(['a@example.com', 'b@example.com']),
    });
    expect(out.map((e) => [e.kind, e.recipient, e.eventId])).toEqual([
      ['delivered', 'a@example.com', 'sns-1:a@example.com'],
      ['delivered', 'b@example.com', 'sns-1:b@example.com'],
    ]);
    expect(out[0]!.detail).toEqual({ providerEventType: 'Delivery' });
  });

  it('ignores a non-string recipient', () => {
    expect(events({ eventType: 'Delivery', delivery: { recipients: [42] }, mail: mail() })).toEqual([
      expect.objectContaining({ kind: 'ignored', recipient: '', ignoredReason: 'recipient is not an email address' }),
    ]);
  });
});

describe('SES subscription events', () => {
  const subscription = (newTopicPreferences: unknown, destination: unknown[] = ['Reader@Example.com']) => ({
    eventType: 'Subscription',
    mail: mail(destination),
    subscription: {
      contactList: 'news',
      timestamp: '2026-03-01T10:00:00.000Z',
      source: 'UnsubscribeHeader',
      newTopicPreferences,
      oldTopicPreferences: { unsubscribeAll: false },
    },
  });

  it('maps unsubscribeAll: true to unsubscribe for mail.destination', () => {
    const [event] = events(subscription({ unsubscribeAll: true }));
    expect(event).toMatchObject({
      kind: 'unsubscribe',
      recipient: 'reader@example.com',
      eventId: 'sns-1:reader@example.com',
      occurredAt: Date.parse('2026-03-01T10:00:00.000Z'),
      detail: { providerEventType: 'Subscription' },
    });
  });

  it('maps each topic entry to its own change: OptOut → unsubscribe, OptIn → subscribe', () => {
    const prefs = {
      unsubscribeAll: false,
      topicSubscriptionStatus: [
        { topicName: 'a', subscriptionStatus: 'OptIn' },
        { topicName: 'b', subscriptionStatus: 'OptOut' },
      ],
    };
    expect(events(subscription(prefs)).map((e) => [e.kind, e.topic])).toEqual([
      ['subscribe', 'ses:news:a'],
      ['unsubscribe', 'ses:news:b'],
    ]);
  });

  it('ignores a subscription change with neither a topic nor an opt-out', () => {
    const [event] = events(subscription({ unsubscribeAll: false, topicSubscriptionStatus: [] }));
    expect(event).toMatchObject({
      kind: 'ignored',
      recipient: 'reader@example.com',
      ignoredReason: 'subscription change without an opt-out or a topic',
    });
  });

  it('does not treat a truthy non-boolean unsubscribeAll as an opt-out', () => {
    expect(events(subscription({ unsubscribeAll: 'true' }))[0]!.kind).toBe('ignored');
  });

  it('ignores an opt-out with several destinations instead of guessing who left', () => {
    const out = events(subscription({ unsubscribeAll: true }, ['a@example.com', 'b@example.com']));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: 'ignored', recipient: '' });
    expect(out[0]!.ignoredReason).toMatch(/ambiguous/);
  });

  it('rejects an opt-out with no destination', () => {
    expect(() => events(subscription({ unsubscribeAll: true }, []))).toThrow(MalformedRequestError);
  });

  it('ignores an opt-out whose destination is not an address', () => {
    expect(events(subscription({ unsubscribeAll: true }, ['Reader <reader@example.com>']))).toEqual([
      expect.objectContaining({ kind: 'ignored', recipient: '', ignoredReason: 'recipient is not an email address' }),
    ]);
  });
});

describe('SES events we acknowledge without acting', () => {
  it.each([
    ['Send', 'send', {}],
    ['Reject', 'reject', { reason: 'Bad content' }],
    ['Open', 'open', { ipAddress: '192.0.2.1', timestamp: '2026-03-01T09:00:00.000Z', userAgent: 'x' }],
    ['Click', 'click', { ipAddress: '192.0.2.1', timestamp: '2026-03-01T09:00:00.000Z', link: 'https://example.com' }],
    [
      'DeliveryDelay',
      'deliveryDelay',
      {
        delayType: 'TransientCommunicationFailure',
        timestamp: '2026-03-01T09:00:00.000Z',
        delayedRecipients: [{ emailAddress: 'to@example.com' }],
      },
    ],
    ['Rendering Failure', 'failure', { templateName: 't', errorMessage: 'missing' }],
  ])('emits exactly one ignored event for %s, with a reason', (eventType, key, object) => {
    const out = events({ eventType, mail: mail(['To@Example.com', 'other@example.com']), [key]: object });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      kind: 'ignored',
      recipient: 'to@example.com',
      eventId: 'sns-1:to@example.com',
      detail: { providerEventType: eventType },
    });
    expect(out[0]!.ignoredReason).toEqual(expect.any(String));
    const objectTime = (object as { timestamp?: string }).timestamp;
    expect(out[0]!.occurredAt).toBe(objectTime ? Date.parse(objectTime) : Date.parse('2018-10-08T14:05:45Z'));
  });

  it("acknowledges SES's AmazonSnsSubscriptionSucceeded notice with an empty recipient", () => {
    const out = events({
      notificationType: 'AmazonSnsSubscriptionSucceeded',
      message: 'You have successfully subscribed',
    });
    expect(out).toEqual([
      expect.objectContaining({ kind: 'ignored', recipient: '', eventId: 'sns-1:', occurredAt: SNS_TS }),
    ]);
  });

  it('acknowledges an unknown event type rather than failing it', () => {
    const [event] = events({ eventType: 'Teleport', mail: mail() });
    expect(event).toMatchObject({ kind: 'ignored', ignoredReason: 'unrecognized SES event type' });
  });

  it('uses an empty recipient when the destination is not an address (ignored events only)', () => {
    expect(events({ eventType: 'Send', send: {}, mail: mail(['undisclosed-recipients:;']) })[0]!.recipient).toBe('');
  });
});

describe('SES document shape', () => {
  // SNS signed these for an allowlisted topic: authentic, so acknowledged as ignored, never a 4xx
  // (SNS would drop the message on a 4xx just the same, only without an audit line).
  it.each([
    ['not JSON', 'hello', 'SNS Message is not valid JSON'],
    ['a JSON array', '[]', 'SNS Message is not a JSON object'],
    ['neither eventType nor notificationType', '{"mail":{}}', NOT_SES_REASON],
    ['an empty eventType', '{"eventType":""}', NOT_SES_REASON],
    [
      'conflicting eventType and notificationType',
      '{"eventType":"Bounce","notificationType":"Delivery"}',
      CONFLICTING_TYPES_REASON,
    ],
    ['a duplicate key', '{"eventType":"Send","eventType":"Bounce"}', 'SNS Message has a duplicate JSON key'],
  ])('acknowledges a Message that is %s as one ignored event', (_why, message, reason) => {
    expect(notificationEvents(message, 'sns-1', SNS_TS, context.raw)).toEqual([
      {
        provider: 'ses',
        eventId: 'sns-1:',
        recipient: '',
        kind: 'ignored',
        ignoredReason: `unreadable SES message: ${reason}`,
        occurredAt: SNS_TS,
        detail: {},
        raw: context.raw,
      },
    ]);
  });
});

describe('through the provider', () => {
  it('uses the SNS MessageId in eventId and the whole body as raw', async () => {
    const fields = notificationFields();
    const request = toRequest(signed(fields));
    const receipt = await makeProvider().receive(request);
    expect(receipt.control).toBeUndefined();
    expect(receipt.events).toEqual([
      expect.objectContaining({
        provider: 'ses',
        eventId: `${fields.MessageId}:bounced@example.com`,
        recipient: 'bounced@example.com',
        kind: 'hard_bounce',
        raw: request.body.toString('utf8'),
      }),
    ]);
  });
});
