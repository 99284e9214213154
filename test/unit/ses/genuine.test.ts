/**
 * Genuine payloads (test/fixtures/genuine/ses and sns, sources in their READMEs) through the real
 * SES provider under an injected clock:
 * - AWS-signed SNS messages with their real AWS certificates, as the AWS SDKs ship them in their own
 *   test suites, served through Ratchet's pinned-directory certificate source;
 * - every SES example document AWS publishes (both notification styles, every eventType), wrapped
 *   in an SNS envelope signed by this file's stand-in key (AWS publishes no signed SES example).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PinnedDirectoryCertificates } from '../../../lambdas/adapters/sns/pinned-certificates.js';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { sesProvider } from '../../../lambdas/core/providers/ses/index.js';
import { isOutcome } from '../../../lambdas/core/reputation/sender.js';
import { lowerCaseHeaders, type WebhookRequest } from '../../../lambdas/core/request.js';
import { makeDeps, makeProvider, notificationFields, rejection, signed, toRequest } from './fixtures.js';

const GENUINE = new URL('../../fixtures/genuine/', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, GENUINE), 'utf8');
const at = (iso: string) => Date.parse(iso);

/** The request exactly as SNS POSTs it: the fixture's bytes, text/plain, the message-type header. */
function snsRequest(body: string): WebhookRequest {
  const type = (JSON.parse(body) as { Type: string }).Type;
  return {
    body: Buffer.from(body, 'utf8'),
    headers: lowerCaseHeaders({ 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': type }),
  };
}

describe('genuine AWS-signed SNS messages (AWS SDK test vectors, real AWS certificates)', () => {
  const certificates = new PinnedDirectoryCertificates(new URL('sns/certs/', GENUINE).pathname);
  const cases = [
    { file: 'sns/ruby-signature-v1.json', version: '1' },
    { file: 'sns/ruby-signature-v2.json', version: '2' },
    { file: 'sns/java-signature-v1.json', version: '1' },
    { file: 'sns/ruby-2012-signature-v1.json', version: '1' },
  ];

  function providerFor(body: string, settings: Record<string, string> = {}, skewMs = 60_000) {
    const message = JSON.parse(body) as { TopicArn: string; Timestamp: string };
    return sesProvider.create(
      makeDeps({ credentials: [message.TopicArn], certificates, now: () => at(message.Timestamp) + skewMs, settings }),
    );
  }

  it.each(cases)(
    '$file (SignatureVersion $version) verifies and is acknowledged as a non-SES message',
    async ({ file, version }) => {
      const body = text(file);
      const message = JSON.parse(body) as Record<string, string>;
      expect(message['SignatureVersion']).toBe(version);
      const receipt = await providerFor(body).receive(snsRequest(body));
      expect(receipt.control).toBeUndefined();
      expect(receipt.events).toEqual([
        {
          provider: 'ses',
          eventId: `${message['MessageId']}:`,
          recipient: '',
          kind: 'ignored',
          ignoredReason: expect.stringMatching(/^unreadable SES message: SNS Message is not valid JSON/),
          occurredAt: at(message['Timestamp']!),
          detail: {},
          raw: body,
        },
      ]);
    },
  );

  it('the SignatureVersion 2 message also passes with SNS_MIN_SIGNATURE_VERSION=2', async () => {
    const body = text('sns/ruby-signature-v2.json');
    const receipt = await providerFor(body, { SNS_MIN_SIGNATURE_VERSION: '2' }).receive(snsRequest(body));
    expect(receipt.events.map((e) => e.kind)).toEqual(['ignored']);
  });

  it.each(cases)('$file fails with one character of Message changed (401)', async ({ file }) => {
    const body = text(file);
    const tampered = body.replace(/"Message" : "([^"]*)"/, (_m, value: string) => `"Message" : "${value}!"`);
    expect(tampered).not.toBe(body);
    const error = await rejection(providerFor(body).receive(snsRequest(tampered)));
    expect(error.status).toBe(401);
  });

  it('a genuine message checked against the other genuine certificate fails (401)', async () => {
    const body = text('sns/ruby-signature-v1.json').replace(
      'SimpleNotificationService-7ff5318490ec183fbaddaa2a969abfda.pem',
      'SimpleNotificationService-bb750dd426d95ee9390147a5624348ee.pem',
    );
    const error = await rejection(providerFor(body).receive(snsRequest(body)));
    expect(error.status).toBe(401);
  });

  it('a genuine message outside the freshness window is refused (401): the clock is what lets it pass', async () => {
    const body = text('sns/ruby-signature-v2.json');
    const error = await rejection(
      providerFor(body, { SNS_MAX_AGE_SECONDS: '3900' }, 3_901_000).receive(snsRequest(body)),
    );
    expect(error.status).toBe(401);
  });

  it('a genuine message from a topic that is not on the allowlist is refused (403)', async () => {
    const body = text('sns/java-signature-v1.json');
    const message = JSON.parse(body) as { Timestamp: string };
    const provider = sesProvider.create(
      makeDeps({
        credentials: ['arn:aws:sns:us-east-1:810605503585:other'],
        certificates,
        now: () => at(message.Timestamp),
      }),
    );
    const error = await rejection(provider.receive(snsRequest(body)));
    expect(error.status).toBe(403);
  });
});

/** An AWS example SES document as the Message of a signed SNS Notification. */
async function receiveExample(file: string): Promise<{ events: NormalizedEvent[]; messageId: string; raw: string }> {
  const messageId = 'b3f1c2d4-0000-4000-8000-genuine00001';
  const message = signed(notificationFields({ MessageId: messageId, Message: text(`ses/${file}`) }));
  const request = toRequest(message);
  const receipt = await makeProvider().receive(request);
  return { events: receipt.events, messageId, raw: request.body.toString('utf8') };
}

type Expected = Pick<NormalizedEvent, 'recipient' | 'kind' | 'occurredAt' | 'detail'> & {
  ignoredReason?: string;
  topic?: string;
  eventIdSuffix?: string;
};

const bounce = (recipient: string, occurred: string, detail: NormalizedEvent['detail']): Expected => ({
  recipient,
  kind: 'hard_bounce',
  occurredAt: at(occurred),
  detail: { bounceType: 'Permanent', bounceSubType: 'General', providerEventType: 'Bounce', ...detail },
});
const ignored = (recipient: string, occurred: string, type: string, reason: string): Expected => ({
  recipient,
  kind: 'ignored',
  ignoredReason: reason,
  occurredAt: at(occurred),
  detail: { providerEventType: type },
});

const EXAMPLES: Array<[string, Expected[]]> = [
  // Identity feedback notifications (notificationType).
  [
    'notification-bounce-with-dsn.json',
    [
      bounce('jane@example.com', '2016-01-27T14:59:38.237Z', {
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 <jane@example.com>... User',
      }),
    ],
  ],
  [
    'notification-bounce-without-dsn.json',
    [
      bounce('jane@example.com', '2016-01-27T14:59:38.237Z', {}),
      bounce('richard@example.com', '2016-01-27T14:59:38.237Z', {}),
    ],
  ],
  [
    'notification-complaint-with-feedback.json',
    [
      {
        recipient: 'richard@example.com',
        kind: 'complaint',
        occurredAt: at('2016-01-27T14:59:38.237Z'),
        detail: { complaintFeedbackType: 'abuse', providerEventType: 'Complaint' },
      },
    ],
  ],
  [
    'notification-complaint-without-feedback.json',
    [
      {
        recipient: 'richard@example.com',
        kind: 'complaint',
        occurredAt: at('2016-01-27T14:59:38.237Z'),
        detail: { providerEventType: 'Complaint' },
      },
    ],
  ],
  [
    'notification-delivery.json',
    [
      {
        recipient: 'jane@example.com',
        kind: 'delivered',
        occurredAt: at('2016-01-27T14:59:38.237Z'),
        detail: { providerEventType: 'Delivery' },
      },
    ],
  ],
  // Configuration-set event publishing (eventType), every type AWS documents.
  [
    'event-bounce.json',
    [
      bounce('recipient@example.com', '2017-08-05T00:41:02.669Z', {
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 user unknown',
      }),
    ],
  ],
  [
    'event-complaint.json',
    [
      {
        recipient: 'recipient@example.com',
        kind: 'complaint',
        occurredAt: at('2017-08-05T00:41:02.669Z'),
        detail: { complaintFeedbackType: 'abuse', providerEventType: 'Complaint' },
      },
    ],
  ],
  [
    'event-delivery.json',
    [
      {
        recipient: 'recipient@example.com',
        kind: 'delivered',
        occurredAt: at('2016-10-19T23:21:04.133Z'),
        detail: { providerEventType: 'Delivery' },
      },
    ],
  ],
  // Send has an empty object: the mail's own timestamp is the event time.
  [
    'event-send.json',
    [
      ignored(
        'recipient@example.com',
        '2016-10-14T05:02:16.645Z',
        'Send',
        'SES accepted the message; not a delivery outcome',
      ),
    ],
  ],
  [
    'event-reject.json',
    [
      ignored(
        'sender@example.com',
        '2016-10-14T17:38:15.211Z',
        'Reject',
        'SES refused to send the message (virus); not a recipient outcome',
      ),
    ],
  ],
  ['event-open.json', [ignored('recipient@example.com', '2017-08-09T22:00:19.652Z', 'Open', 'engagement event')]],
  ['event-click.json', [ignored('recipient@example.com', '2017-08-09T23:51:25.570Z', 'Click', 'engagement event')]],
  [
    'event-rendering-failure.json',
    [
      ignored(
        'recipient@example.com',
        '2018-01-22T18:43:06.197Z',
        'Rendering Failure',
        'template rendering failed before sending; not a recipient outcome',
      ),
    ],
  ],
  [
    'event-delivery-delay.json',
    [
      ignored(
        'recipient@example.com',
        '2020-06-16T00:25:40.095Z',
        'DeliveryDelay',
        'SES is still retrying; only the final outcome counts',
      ),
    ],
  ],
  // Used by the topics work: only what holds today (unsubscribeAll → a global unsubscribe).
  [
    'event-subscription.json',
    // unsubscribeAll: true is global; the topic entry is also recorded as its own topic change.
    [
      {
        recipient: 'recipient@example.com',
        kind: 'unsubscribe',
        occurredAt: at('2022-01-12T01:00:17.910Z'),
        detail: { providerEventType: 'Subscription' },
      },
      {
        recipient: 'recipient@example.com',
        kind: 'unsubscribe',
        topic: 'ses:ContactListName:ExampleTopicName',
        eventIdSuffix: ':ses:ContactListName:ExampleTopicName',
        occurredAt: at('2022-01-12T01:00:17.910Z'),
        detail: { providerEventType: 'Subscription' },
      },
    ],
  ],
];

/** Each example's `mail.messageId` (not `mail.commonHeaders.messageId`), which its actionable events carry. */
const MAIL_MESSAGE_IDS: Readonly<Record<string, string>> = {
  'notification-bounce-with-dsn.json': '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000',
  'notification-bounce-without-dsn.json': '00000137860315fd-34208509-5b74-41f3-95c5-22c1edc3c924-000000',
  'notification-complaint-with-feedback.json': '000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000',
  'notification-complaint-without-feedback.json': '0000013786031775-163e3910-53eb-4c8e-a04a-f29debf88a84-000000',
  'notification-delivery.json': '0000014644fe5ef6-9a483358-9170-4cb4-a269-f5dcdf415321-000000',
  'event-bounce.json': 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000',
  'event-complaint.json': 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000',
  'event-delivery.json': 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000',
  'event-subscription.json': 'EXAMPLEe4bccb684-777bc8de-afa7-4970-92b0-f515137b1497-000000',
};

describe('AWS SES example documents through the SES provider', () => {
  it.each(EXAMPLES)('%s', async (file, expected) => {
    const { events, messageId, raw } = await receiveExample(file);
    const mailMessageId = (e: Expected) => (e.kind === 'ignored' ? {} : { messageId: MAIL_MESSAGE_IDS[file] });
    // Every example's sender is example.com: `ses:from-domain` on the event-publishing ones,
    // `mail.source` (john@example.com) on the notifications. Outcomes only (sender-mapping.test.ts).
    const sender = (e: Expected) => (isOutcome(e.kind) ? { sender: 'example.com' } : {});
    expect(events).toEqual(
      expected.map(({ eventIdSuffix = '', ...e }) => ({
        provider: 'ses',
        eventId: `${messageId}:${e.recipient}${eventIdSuffix}`,
        raw,
        ...e,
        ...mailMessageId(e),
        ...sender(e),
      })),
    );
  });

  it('covers every eventType AWS documents for event publishing', () => {
    const types = EXAMPLES.filter(([file]) => file.startsWith('event-')).map(
      ([file]) => (JSON.parse(text(`ses/${file}`)) as { eventType: string }).eventType,
    );
    expect(types.sort()).toEqual(
      [
        'Bounce',
        'Click',
        'Complaint',
        'Delivery',
        'DeliveryDelay',
        'Open',
        'Reject',
        'Rendering Failure',
        'Send',
        'Subscription',
      ].sort(),
    );
  });

  it('an eventType SES adds later is acknowledged as ignored, not refused', async () => {
    const document = JSON.parse(text('ses/event-send.json')) as Record<string, unknown>;
    const message = signed(notificationFields({ Message: JSON.stringify({ ...document, eventType: 'SomethingNew' }) }));
    const receipt = await makeProvider().receive(toRequest(message));
    expect(receipt.events.map((e) => [e.kind, e.ignoredReason, e.recipient])).toEqual([
      ['ignored', 'unrecognized SES event type', 'recipient@example.com'],
    ]);
  });
});
