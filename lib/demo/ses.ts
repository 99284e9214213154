/**
 * Demo signer for SES via SNS: builds what SNS would POST for a sample SES event and signs it the
 * way SNS does, with a self-signed certificate standing in for AWS's (the local runtime pins it by
 * file name instead of fetching it). The string to sign is written out here independently of
 * lambdas/core/providers/ses/sns so that a mistake on one side shows up as a failing test, not a matching pair.
 */
import { createPrivateKey, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { createSelfSignedCertificate } from './self-signed-certificate.js';
import {
  assertDemoScope,
  type DemoCredentials,
  type DemoSigner,
  type SampleEvent,
  type SignedDemoRequest,
} from './types.js';

export const DEMO_TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:ratchet-demo';

const DEMO_SUBSCRIPTION_ID = '8a21d249-4329-4871-acc6-7be709c6ea7f';

export type SnsType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
export type SnsSignatureVersion = '1' | '2';

/** The envelope fields before signing. Extra fields (e.g. a stray Token on a Notification) are kept, unsigned. */
export interface SnsFields {
  Type: SnsType;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
  UnsubscribeURL?: string;
  [extra: string]: string | undefined;
}

export type SignedSnsMessage = Record<string, string>;

// From the SNS developer guide, "Verifying the signatures of Amazon SNS messages", step 5.
const SIGNED_KEYS: Readonly<Record<SnsType, readonly string[]>> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

// The order SNS itself writes the envelope in (cosmetic: the signature does not depend on it).
const ENVELOPE_ORDER = [
  'Type',
  'MessageId',
  'Token',
  'TopicArn',
  'Subject',
  'Message',
  'SubscribeURL',
  'Timestamp',
  'SignatureVersion',
  'Signature',
  'SigningCertURL',
  'UnsubscribeURL',
];

/** Adds SignatureVersion and Signature to `fields`, signed as SNS would (v1 SHA1withRSA, v2 SHA256withRSA). */
export function signSnsMessage(
  fields: SnsFields,
  privateKey: string | KeyObject,
  version: SnsSignatureVersion = '2',
): SignedSnsMessage {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const lines: string[] = [];
  for (const name of SIGNED_KEYS[fields.Type]) {
    const value = fields[name];
    if (value !== undefined) lines.push(name, value);
  }
  const data = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  const signature = sign(version === '1' ? 'sha1' : 'sha256', data, key).toString('base64');

  const all: Record<string, string | undefined> = { ...fields, SignatureVersion: version, Signature: signature };
  const ordered: SignedSnsMessage = {};
  for (const name of [...ENVELOPE_ORDER, ...Object.keys(all)]) {
    const value = all[name];
    if (value !== undefined && !(name in ordered)) ordered[name] = value;
  }
  return ordered;
}

/** The HTTP request SNS would send for a signed envelope: JSON body, text/plain, SNS headers. */
export function snsHttpRequest(message: SignedSnsMessage): SignedDemoRequest {
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=UTF-8',
    'user-agent': 'Amazon Simple Notification Service Agent',
    'x-amz-sns-message-type': message['Type'] ?? '',
    'x-amz-sns-message-id': message['MessageId'] ?? '',
    'x-amz-sns-topic-arn': message['TopicArn'] ?? '',
  };
  // There is no subscription ARN before the subscription is confirmed.
  if (message['Type'] !== 'SubscriptionConfirmation') {
    headers['x-amz-sns-subscription-arn'] = `${message['TopicArn']}:${DEMO_SUBSCRIPTION_ID}`;
  }
  return { headers, body: JSON.stringify(message) };
}

/** `https://sns.<region>.amazonaws.com/<fileName>`, the region taken from the topic ARN. */
export function demoSigningCertUrl(topicArn: string, fileName: string): string {
  const region = topicArn.split(':')[3];
  if (!region) throw new Error(`not a topic ARN: ${topicArn}`);
  const suffix = topicArn.startsWith('arn:aws-cn:') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sns.${region}.${suffix}/${fileName}`;
}

/**
 * A realistic SES document for each actionable kind (feedback-notification style; Subscription is
 * event-publishing only). Without a topic, an unsubscribe is `unsubscribeAll: true` (global); with
 * one (`topic` or `list:topic`), it is that topic's OptOut, and `subscribe` its OptIn.
 */
export const sesDemoPayload: SampleEvent = (kind, email, nowMs, options = {}) => {
  assertDemoScope(sesDemo, kind, options);
  const sentAt = new Date(nowMs - 5_000).toISOString();
  const at = new Date(nowMs - 1_000).toISOString();
  const mail = {
    timestamp: sentAt,
    source: 'Ratchet Demo <sender@example.com>',
    sourceArn: 'arn:aws:ses:us-east-1:000000000000:identity/example.com',
    sourceIp: '192.0.2.10',
    sendingAccountId: '000000000000',
    messageId: `0100018${randomBytes(8).toString('hex')}-${randomUUID()}-000000`,
    destination: [email],
  };
  const feedbackId = `0100018${randomBytes(8).toString('hex')}-${randomUUID()}-000000`;
  switch (kind) {
    case 'hard_bounce':
    case 'soft_bounce': {
      const hard = kind === 'hard_bounce';
      return {
        notificationType: 'Bounce',
        bounce: {
          feedbackId,
          bounceType: hard ? 'Permanent' : 'Transient',
          bounceSubType: hard ? 'General' : 'MailboxFull',
          bouncedRecipients: [
            {
              emailAddress: email,
              action: 'failed',
              status: hard ? '5.1.1' : '5.2.2',
              diagnosticCode: hard ? 'smtp; 550 5.1.1 user unknown' : 'smtp; 552 5.2.2 mailbox full',
            },
          ],
          timestamp: at,
          remoteMtaIp: '198.51.100.7',
          reportingMTA: 'dsn; a8-50.smtp-out.amazonses.com',
        },
        mail,
      };
    }
    case 'complaint':
      return {
        notificationType: 'Complaint',
        complaint: {
          feedbackId,
          complaintSubType: null,
          complainedRecipients: [{ emailAddress: email }],
          timestamp: at,
          userAgent: 'ExampleCorp Feedback Loop (V0.01)',
          complaintFeedbackType: 'abuse',
          arrivalDate: at,
        },
        mail,
      };
    case 'delivered':
      return {
        notificationType: 'Delivery',
        delivery: {
          timestamp: at,
          processingTimeMillis: 4_000,
          recipients: [email],
          smtpResponse: '250 2.6.0 Message received',
          remoteMtaIp: '198.51.100.7',
          reportingMTA: 'a8-50.smtp-out.amazonses.com',
        },
        mail,
      };
    case 'unsubscribe':
    case 'subscribe': {
      const [list, topicName] = sesScope(options.topic);
      const now = kind === 'subscribe' ? 'OptIn' : 'OptOut';
      const before = kind === 'subscribe' ? 'OptOut' : 'OptIn';
      return {
        eventType: 'Subscription',
        mail,
        subscription: {
          contactList: list,
          timestamp: at,
          source: options.topic === undefined ? 'UnsubscribeHeader' : 'UnsubscribeLink',
          // A global unsubscribe (List-Unsubscribe) lists no topic change: one event, as the demo promises.
          newTopicPreferences: {
            unsubscribeAll: options.topic === undefined,
            topicSubscriptionStatus: options.topic === undefined ? [] : [{ topicName, subscriptionStatus: now }],
          },
          oldTopicPreferences: {
            unsubscribeAll: false,
            topicSubscriptionStatus: [{ topicName, subscriptionStatus: before }],
          },
        },
      };
    }
  }
};

/** `weekly` → [ratchet-demo, weekly]; `main:weekly` → [main, weekly]. */
function sesScope(topic: string | undefined): [string, string] {
  if (topic === undefined) return ['ratchet-demo', 'ratchet-demo'];
  const colon = topic.indexOf(':');
  return colon < 0 ? ['ratchet-demo', topic] : [topic.slice(0, colon), topic.slice(colon + 1)];
}

export const sesDemo: DemoSigner = {
  provider: 'ses',
  topicOption: 'topic',

  createCredentials(): DemoCredentials {
    const certificate = createSelfSignedCertificate();
    return {
      credential: DEMO_TOPIC_ARN,
      signingSecret: certificate.privateKeyPem,
      pinnedCertificate: {
        fileName: `SimpleNotificationService-${randomBytes(16).toString('hex')}.pem`,
        pem: certificate.certificatePem,
      },
    };
  },

  sign(kind, email, credentials, nowMs, options) {
    const pinned = credentials.pinnedCertificate;
    if (!pinned) throw new Error('SES demo credentials need a pinned certificate');
    const topicArn = credentials.credential;
    const certUrl = demoSigningCertUrl(topicArn, pinned.fileName);
    const subscriptionArn = `${topicArn}:${DEMO_SUBSCRIPTION_ID}`;
    const message = signSnsMessage(
      {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: topicArn,
        Message: JSON.stringify(sesDemoPayload(kind, email, nowMs, options)),
        Timestamp: new Date(nowMs).toISOString(),
        SigningCertURL: certUrl,
        UnsubscribeURL: `${new URL(certUrl).origin}/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
      },
      credentials.signingSecret,
      '2',
    );
    return snsHttpRequest(message);
  },
};
