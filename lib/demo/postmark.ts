/**
 * Builds sample Postmark webhook requests the way Postmark sends them: one JSON record per request,
 * PascalCase fields, 7-digit fractional timestamps, and no signature at all: the only credential is
 * HTTP Basic auth from the webhook URL (`https://user:password@host/...`). The local runtime supplies
 * the source IP (127.0.0.1), so a demo allowlist must include it.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { assertDemoScope, type DemoSigner, type SampleEvent, sharedSecret } from './types.js';

/** `Authorization` for a `user:password` credential, as Postmark derives it from the webhook URL. */
export function postmarkAuthorization(credential: string): string {
  return `Basic ${Buffer.from(credential, 'utf8').toString('base64')}`;
}

/** Postmark's .NET timestamps carry 7 fractional digits: `2019-11-05T16:33:54.9070259Z`. */
export function postmarkTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '0000Z');
}

/**
 * One realistic record of each actionable kind (postmark.md §3). An unsubscribe is what Postmark sends
 * for a recipient's unsubscribe: a SubscriptionChange ManualSuppression on the stream (`outbound`
 * unless a topic names another), so it is scoped to that stream; `subscribe` is its reactivation.
 */
export const samplePostmarkRecord: SampleEvent = (kind, email, nowMs, options = {}) => {
  assertDemoScope(postmarkDemo, kind, options);
  const at = postmarkTimestamp(nowMs - 2000);
  const message = {
    MessageID: randomUUID(),
    ServerID: 23,
    MessageStream: options.topic ?? 'outbound',
    Tag: 'ratchet-demo',
    Metadata: {},
  };
  const bounce = (type: string, typeCode: number, name: string, inactive: boolean, details: string) => ({
    RecordType: 'Bounce',
    ID: randomInt(1, 2 ** 40),
    Type: type,
    TypeCode: typeCode,
    Name: name,
    ...message,
    Description: name,
    Details: details,
    Email: email,
    From: 'demo@example.org',
    BouncedAt: at,
    DumpAvailable: false,
    Inactive: inactive,
    CanActivate: true,
    Subject: 'Ratchet demo',
  });
  switch (kind) {
    case 'delivered':
      return {
        RecordType: 'Delivery',
        ...message,
        Recipient: email,
        DeliveredAt: at,
        Details: 'smtp;250 2.0.0 OK ratchet-demo',
      };
    case 'hard_bounce':
      return bounce(
        'HardBounce',
        1,
        'Hard bounce',
        true,
        'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
      );
    case 'soft_bounce':
      return bounce(
        'SoftBounce',
        4096,
        'Soft bounce/Undeliverable',
        false,
        'smtp;452 4.2.2 The email account that you tried to reach is over quota.',
      );
    case 'complaint':
      return {
        ...bounce('SpamComplaint', 100001, 'Spam complaint', true, 'Test spam complaint details'),
        RecordType: 'SpamComplaint',
        CanActivate: false,
      };
    case 'unsubscribe':
      return {
        RecordType: 'SubscriptionChange',
        ...message,
        ChangedAt: at,
        Recipient: email,
        Origin: 'Recipient',
        SuppressSending: true,
        SuppressionReason: 'ManualSuppression',
      };
    case 'subscribe':
      // A reactivation: no message, no reason, no tag (postmark.md §3).
      return {
        RecordType: 'SubscriptionChange',
        ...message,
        MessageID: null,
        Tag: null,
        ChangedAt: at,
        Recipient: email,
        Origin: 'Customer',
        SuppressSending: false,
        SuppressionReason: null,
      };
  }
};

export const postmarkDemo: DemoSigner = {
  provider: 'postmark',
  topicOption: 'topic',
  // URL-safe characters only, so the pair can sit in a webhook URL without escaping.
  createCredentials: () =>
    sharedSecret(`ratchet-${randomBytes(4).toString('hex')}:${randomBytes(24).toString('base64url')}`),
  sign(kind, email, credentials, nowMs, options) {
    return {
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Postmark',
        authorization: postmarkAuthorization(credentials.signingSecret),
      },
      body: JSON.stringify(samplePostmarkRecord(kind, email, nowMs, options)),
    };
  },
};
