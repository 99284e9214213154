/**
 * Signs sample SendGrid Event Webhook requests the way SendGrid does: a JSON array of events, each
 * followed by CRLF as in SendGrid's own test vectors, ECDSA P-256 / SHA-256 over `timestamp + body`,
 * base64 DER signature. Written against the spec rather than our verifier, so tests that use it check
 * the verifier against an independent signer.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { assertDemoScope, type DemoCredentials, type DemoSigner, type SampleEvent, unixSeconds } from './types.js';

/** Headers for an arbitrary body: for tests that need bodies `sign` does not build (batches, malformed JSON). */
export function signSendgridBody(
  body: string | Buffer,
  timestamp: string,
  privateKeyPem: string,
): Record<string, string> {
  const signature = sign('sha256', Buffer.concat([Buffer.from(timestamp), Buffer.from(body)]), privateKeyPem);
  return {
    'content-type': 'application/json',
    'x-twilio-email-event-webhook-signature': signature.toString('base64'),
    'x-twilio-email-event-webhook-timestamp': timestamp,
  };
}

/** SendGrid's own framing: minified events, `,\r\n` between them, a trailing CRLF. */
export function sendgridBatchBody(events: readonly object[]): string {
  return `[${events.map((e) => JSON.stringify(e)).join(',\r\n')}]\r\n`;
}

/**
 * One realistic event object of each actionable kind. With a group (an ASM group id), `unsubscribe`
 * is `group_unsubscribe` and `subscribe` is `group_resubscribe`.
 */
export const sampleSendgridEvent: SampleEvent = (kind, email, nowMs, options = {}) => {
  assertDemoScope(sendgridDemo, kind, options);
  const messageId = randomBytes(16).toString('base64url');
  const common = {
    email,
    timestamp: Math.floor(nowMs / 1000) - 2,
    'smtp-id': `<${messageId}@ismtpd0001p1iad1.sendgrid.net>`,
    sg_event_id: randomBytes(36).toString('base64url'),
    sg_message_id: `${messageId}.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0`,
    category: ['ratchet-demo'],
  };
  switch (kind) {
    case 'delivered':
      return {
        ...common,
        event: 'delivered',
        response: '250 2.0.0 OK 1600112492 ratchet-demo',
        ip: '167.89.101.76',
        tls: 1,
      };
    case 'hard_bounce':
      return {
        ...common,
        event: 'bounce',
        type: 'bounce',
        status: '5.1.1',
        reason: '550 5.1.1 The email account that you tried to reach does not exist.',
        bounce_classification: 'Invalid Address',
        ip: '167.89.101.76',
        tls: 1,
      };
    case 'soft_bounce':
      return {
        ...common,
        event: 'bounce',
        type: 'blocked',
        status: '4.7.1',
        reason: '421 4.7.1 Temporarily rate limited due to IP reputation.',
        bounce_classification: 'Reputation',
        ip: '167.89.101.76',
        tls: 1,
      };
    case 'complaint':
      return { ...common, event: 'spamreport' };
    case 'unsubscribe':
    case 'subscribe':
      if (options.topic === undefined) return { ...common, event: 'unsubscribe' };
      return {
        ...common,
        event: kind === 'subscribe' ? 'group_resubscribe' : 'group_unsubscribe',
        asm_group_id: asmGroupId(options.topic),
      };
  }
};

/** SendGrid sends the group id as a JSON number. */
function asmGroupId(group: string): number {
  if (!/^[0-9]{1,15}$/.test(group)) throw new Error('a SendGrid group is its numeric asm_group_id');
  return Number(group);
}

export const sendgridDemo: DemoSigner = {
  provider: 'sendgrid',
  topicOption: 'group',
  createCredentials(): DemoCredentials {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return {
      credential: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      signingSecret: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  },
  sign(kind, email, credentials, nowMs, options) {
    const body = sendgridBatchBody([sampleSendgridEvent(kind, email, nowMs, options)]);
    const timestamp = unixSeconds(nowMs);
    return { headers: signSendgridBody(body, timestamp, credentials.signingSecret), body };
  },
};
