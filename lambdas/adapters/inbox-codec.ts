/**
 * How an inbox row's payload is packed: the normalized events (one JSON line) and the exact raw payload
 * after a newline, raw-deflated with a preset dictionary. The events mostly repeat strings of the
 * raw payload, so deflate stores them for a few dozen bytes, and replay needs no provider re-verification.
 *
 * Why a preset dictionary: SNS pretty-prints its envelope and the signature is incompressible, so plain
 * gzip leaves a real SES notification at about 1.0–1.3 KB, over DynamoDB's 1 KB write unit. The
 * dictionary holds the envelopes' constant text (keys, punctuation, fixed values: never sample values),
 * so even the first occurrence of a key is a back-reference. `npm run cost` measures it against gzip,
 * plain deflate and brotli on AWS's published examples (BENCHMARKS.md).
 *
 * The dictionary is versioned: each row stores the version it was packed with, and a version, once
 * shipped, never changes (a test pins its hash), so old rows stay readable after a new one is added.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { NormalizedEvent } from '../core/event.js';

export type StoredEvent = Omit<NormalizedEvent, 'raw'>;

export const CURRENT_CODEC = 1;

/** SNS's HTTP envelope, laid out as SNS sends it (key, space, colon), values left out. */
const SNS_ENVELOPE = [
  '{\n  "Type" : "Notification",\n  "MessageId" : "',
  '",\n  "TopicArn" : "arn:aws:sns:us-east-1:',
  '",\n  "Subject" : "',
  '",\n  "Message" : "',
  '",\n  "Timestamp" : "',
  '",\n  "SignatureVersion" : "1',
  '",\n  "Signature" : "',
  '",\n  "SigningCertURL" : "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-',
  '.pem",\n  "UnsubscribeURL" : "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:',
  '"\n}',
].join('');

/** SES notification and event-publishing shapes with every value emptied: only structure and keys. */
const SES_SKELETON = {
  eventType: '',
  notificationType: '',
  bounce: {
    bounceType: 'Permanent',
    bounceSubType: 'General',
    bouncedRecipients: [{ emailAddress: '', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 ' }],
    timestamp: '',
    feedbackId: '',
    remoteMtaIp: '',
    reportingMTA: 'dsn; ',
  },
  complaint: {
    complainedRecipients: [{ emailAddress: '' }],
    timestamp: '',
    feedbackId: '',
    userAgent: '',
    complaintFeedbackType: 'abuse',
    arrivalDate: '',
  },
  subscription: {
    contactList: '',
    timestamp: '',
    source: 'UnsubscribeHeader',
    newTopicPreferences: {
      unsubscribeAll: true,
      topicSubscriptionStatus: [{ topicName: '', subscriptionStatus: 'OptOut' }],
    },
    oldTopicPreferences: {
      unsubscribeAll: false,
      topicSubscriptionStatus: [{ topicName: '', subscriptionStatus: 'OptIn' }],
    },
  },
  mail: {
    timestamp: '',
    source: '',
    sourceArn: 'arn:aws:ses:us-east-1:',
    sourceIp: '',
    callerIdentity: '',
    sendingAccountId: '',
    messageId: '',
    destination: [''],
    headersTruncated: false,
    headers: [
      { name: 'From', value: '' },
      { name: 'To', value: '' },
      { name: 'Subject', value: '' },
      { name: 'MIME-Version', value: '1.0' },
      { name: 'Content-Type', value: 'multipart/alternative; boundary=' },
      { name: 'Content-Transfer-Encoding', value: '7bit' },
    ],
    commonHeaders: { from: [''], to: [''], messageId: '', subject: '' },
    tags: {
      'ses:configuration-set': [''],
      'ses:source-ip': [''],
      'ses:from-domain': [''],
      'ses:caller-identity': [''],
      'ses:outgoing-ip': [''],
    },
  },
  delivery: {
    timestamp: '',
    processingTimeMillis: 0,
    recipients: [''],
    smtpResponse: '250 ',
    remoteMtaIp: '',
    reportingMTA: '',
  },
};

/**
 * SES's identity notifications (`notificationType`, the "classic" ones) lay their keys out in another
 * order than event publishing does, and add a few (`reportingMTA`, the `Date` and `Message-ID` headers,
 * `commonHeaders.date`): their skeleton, values emptied, in that order. Added in dictionary 2.
 */
const SES_CLASSIC_SKELETON = {
  notificationType: 'Bounce',
  bounce: {
    bounceType: 'Permanent',
    reportingMTA: 'dns; ',
    bouncedRecipients: [{ emailAddress: '', status: '5.1.1', action: 'failed', diagnosticCode: 'smtp; 550 5.1.1 ' }],
    bounceSubType: 'General',
    timestamp: '',
    feedbackId: '',
    remoteMtaIp: '',
  },
  complaint: {
    userAgent: '',
    complainedRecipients: [{ emailAddress: '' }],
    complaintFeedbackType: 'abuse',
    arrivalDate: '',
    timestamp: '',
    feedbackId: '',
  },
  delivery: {
    timestamp: '',
    processingTimeMillis: 0,
    recipients: [''],
    smtpResponse: '250 ok',
    reportingMTA: '',
    remoteMtaIp: '',
  },
  mail: {
    timestamp: '',
    messageId: '',
    source: '',
    sourceArn: 'arn:aws:ses:us-east-1:',
    sourceIp: '',
    sendingAccountId: '',
    callerIdentity: '',
    destination: [''],
    headersTruncated: false,
    headers: [
      { name: 'From', value: '' },
      { name: 'To', value: '' },
      { name: 'Message-ID', value: '' },
      { name: 'Subject', value: '' },
      { name: 'Content-Type', value: 'text/plain; charset="UTF-8"' },
      { name: 'Content-Transfer-Encoding', value: 'base64' },
      { name: 'Date', value: '' },
    ],
    commonHeaders: { from: [''], date: '', to: [''], messageId: '', subject: '' },
  },
};

/** SendGrid's event fields, emptied. */
const SENDGRID_SKELETON = [
  {
    email: '',
    timestamp: 0,
    'smtp-id': '<',
    event: 'delivered',
    category: [''],
    sg_event_id: '',
    sg_message_id: '',
    response: '250 ',
    ip: '',
    tls: 1,
  },
  { event: 'bounce', type: 'bounce', status: '5.1.1', reason: '', bounce_classification: '' },
];

/** Our own header line (values emptied): it leads every payload. */
const HEADER_SKELETON = [
  {
    provider: 'ses',
    eventId: '',
    recipient: '',
    kind: 'delivered',
    occurredAt: 0,
    detail: {
      bounceType: '',
      bounceSubType: '',
      status: '',
      diagnosticCode: '',
      complaintFeedbackType: '',
      providerEventType: '',
    },
  },
];

/** JSON as SES puts it inside the SNS `Message` string: serialized, then escaped as a JSON string. */
function asMessage(json: string): string {
  return JSON.stringify(json).slice(1, -1);
}

/**
 * SES serializes compactly; AWS's documentation shows the same records indented, with and without a
 * space after the colon. The dictionary carries all three layouts of the same constant text.
 */
function sesLayouts(value: unknown): string[] {
  const indented = JSON.stringify(value, null, 2);
  return [indented.replace(/": /g, '":'), indented, JSON.stringify(value)].map(asMessage);
}

/** Deflate reaches back at most 32 KB; the most common text goes last, where distances are shortest. */
const DICTIONARIES: Readonly<Record<number, Buffer>> = {
  1: Buffer.from(
    [
      JSON.stringify(SENDGRID_SKELETON),
      ...sesLayouts(SES_SKELETON),
      JSON.stringify(HEADER_SKELETON),
      SNS_ENVELOPE,
    ].join('\n'),
    'utf8',
  ),
  2: Buffer.from(
    [
      JSON.stringify(SENDGRID_SKELETON),
      ...sesLayouts(SES_CLASSIC_SKELETON),
      ...sesLayouts(SES_SKELETON),
      JSON.stringify(HEADER_SKELETON),
      SNS_ENVELOPE,
    ].join('\n'),
    'utf8',
  ),
};

export function dictionary(version: number): Buffer {
  const dict = DICTIONARIES[version];
  if (!dict) throw new Error(`unknown inbox codec version ${version}`);
  return dict;
}

export interface Decoded {
  events: StoredEvent[];
  raw: string;
}

export function deflateWithDictionary(plain: string, version: number): Buffer {
  return deflateRawSync(plain, { level: 9, memLevel: 9, dictionary: dictionary(version) });
}

export function inflateWithDictionary(payload: Uint8Array, version: number): string {
  return inflateRawSync(payload, { dictionary: dictionary(version) }).toString('utf8');
}

/** Version 1's body: every event whole, then the raw payload (version 2 packs more tightly: inbox-packing.ts). */
export function encodePayload(events: readonly StoredEvent[], raw: string, version = CURRENT_CODEC): Buffer {
  return deflateWithDictionary(`${JSON.stringify(events)}\n${raw}`, version);
}

export function decodePayload(payload: Uint8Array, version: number): Decoded {
  const plain = inflateWithDictionary(payload, version);
  // JSON.stringify never writes a raw newline, so the first one ends the events line.
  const cut = plain.indexOf('\n');
  return { events: JSON.parse(plain.slice(0, cut)) as StoredEvent[], raw: plain.slice(cut + 1) };
}
