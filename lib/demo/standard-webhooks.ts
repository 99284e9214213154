/**
 * Signs sample Standard Webhooks requests the way a Svix-style sender (Resend) does: a Resend-shaped
 * body, HMAC-SHA256 over `${id}.${timestamp}.${body}` with the base64-decoded `whsec_` secret,
 * `v1,<base64>` in `webhook-signature`. Written against the spec rather than our verifier.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  assertDemoScope,
  type BodySigner,
  type DemoSigner,
  type SampleEvent,
  sharedSecret,
  unixSeconds,
} from './types.js';

/** `v1,<base64>` for one secret. */
export function standardSignature(secret: string, id: string, timestamp: string, body: string | Buffer): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The three `webhook-*` headers for an arbitrary body. */
export const signStandardBody: BodySigner = (secret, id, timestamp, body) => ({
  'content-type': 'application/json',
  'webhook-id': id,
  'webhook-timestamp': timestamp,
  'webhook-signature': standardSignature(secret, id, timestamp, body),
});

/** Svix message ids: `msg_` + 27 base62-ish characters. */
export function standardMessageId(): string {
  return `msg_${randomBytes(20).toString('base64url').replace(/[-_]/g, '').slice(0, 27)}`;
}

/**
 * One Resend-shaped body of each actionable kind (resend.md §2). With a topic (a Resend topic id),
 * `unsubscribe` / `subscribe` are a `contact.topics.updated` with `opt_out` / `opt_in`.
 */
export const sampleStandardEvent: SampleEvent = (kind, email, nowMs, options = {}) => {
  assertDemoScope(standardWebhooksDemo, kind, options);
  const createdAt = new Date(nowMs - 2000).toISOString();
  if (options.topic !== undefined) {
    const subscription = kind === 'subscribe' ? 'opt_in' : 'opt_out';
    return {
      type: 'contact.topics.updated',
      created_at: createdAt,
      data: { email, topics: [{ id: options.topic, subscription }] },
    };
  }
  const emailData = {
    email_id: randomUUID(),
    from: 'Ratchet Demo <demo@example.org>',
    to: [email],
    subject: 'Ratchet demo',
    created_at: new Date(nowMs - 60_000).toISOString(),
    tags: [{ name: 'app', value: 'ratchet-demo' }],
  };
  switch (kind) {
    case 'delivered':
      return { type: 'email.delivered', created_at: createdAt, data: emailData };
    case 'hard_bounce':
      return {
        type: 'email.bounced',
        created_at: createdAt,
        data: {
          ...emailData,
          bounce: { type: 'Permanent', subType: 'General', message: "The recipient's email address does not exist." },
        },
      };
    case 'soft_bounce':
      return {
        type: 'email.bounced',
        created_at: createdAt,
        data: {
          ...emailData,
          bounce: { type: 'Transient', subType: 'MailboxFull', message: "The recipient's mailbox is full." },
        },
      };
    case 'complaint':
      return { type: 'email.complained', created_at: createdAt, data: emailData };
    case 'subscribe': // (unreachable: assertDemoScope requires a topic)
    case 'unsubscribe':
      // Resend has no email.unsubscribed: an unsubscribe arrives as a contact update.
      return {
        type: 'contact.updated',
        created_at: createdAt,
        data: {
          id: randomUUID(),
          email,
          first_name: '',
          last_name: '',
          unsubscribed: true,
          created_at: new Date(nowMs - 86_400_000).toISOString(),
          updated_at: createdAt,
        },
      };
  }
};

export const standardWebhooksDemo: DemoSigner = {
  provider: 'standard',
  topicOption: 'topic',
  createCredentials: () => sharedSecret(`whsec_${randomBytes(24).toString('base64')}`),
  sign(kind, email, credentials, nowMs, options) {
    const body = JSON.stringify(sampleStandardEvent(kind, email, nowMs, options));
    const timestamp = unixSeconds(nowMs);
    return { headers: signStandardBody(credentials.signingSecret, standardMessageId(), timestamp, body), body };
  },
};
