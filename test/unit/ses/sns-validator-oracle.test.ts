/**
 * Differential tests against AWS's own JS validator (sns-validator@0.3.5). It fetches the certificate
 * with `require('https').get` at call time, so we swap `get` on that same module object for a fake
 * that serves this file's self-signed certificate: no network. Agreement on valid messages shows our
 * string-to-sign and digest choice match AWS's; the disagreements are deliberate, each one a gap in
 * the reference validator that ours closes (or, for UnsubscribeConfirmation, a bug it has).
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SnsFields } from '../../../lib/demo/ses.js';
import {
  CERT_URL,
  confirmationFields,
  makeProvider,
  NOW,
  notificationFields,
  OTHER_TOPIC_ARN,
  recordingCertificates,
  rejection,
  signed,
  signingCertificate,
  toRequest,
} from './fixtures.js';

const require = createRequire(import.meta.url);
const https = require('https') as { get: unknown };
interface ValidatorInstance {
  validate(message: object | string, callback: (error: Error | null, message?: unknown) => void): void;
}
const MessageValidator = require('sns-validator') as new (hostPattern?: RegExp) => ValidatorInstance;

let originalGet: unknown;
let fetched: string[];

beforeEach(() => {
  originalGet = https.get;
  fetched = [];
  https.get = (url: string, onResponse: (response: Readable & { statusCode: number }) => void) => {
    fetched.push(url);
    const response = Object.assign(Readable.from([signingCertificate().certificatePem]), { statusCode: 200 });
    process.nextTick(() => onResponse(response));
    return new EventEmitter();
  };
});

afterEach(() => {
  https.get = originalGet;
});

/** null when the reference validator accepts, else its error. */
function oracle(message: object): Promise<Error | null> {
  return new Promise((resolve) => new MessageValidator().validate(message, (error) => resolve(error ?? null)));
}

async function ours(message: Record<string, string>): Promise<'accepted' | number> {
  try {
    await makeProvider({ certificates: recordingCertificates() }).receive(toRequest(message));
    return 'accepted';
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('agreement with sns-validator on valid messages', () => {
  const cases: Array<[string, () => SnsFields, '1' | '2']> = [
    ['v1 Notification', () => notificationFields(), '1'],
    ['v2 Notification', () => notificationFields(), '2'],
    ['v1 Notification with Subject', () => notificationFields({ Subject: 'Amazon SES Email Event Notification' }), '1'],
    ['v2 Notification with empty Subject', () => notificationFields({ Subject: '' }), '2'],
    ['v1 SubscriptionConfirmation', () => confirmationFields('SubscriptionConfirmation'), '1'],
    ['v2 SubscriptionConfirmation', () => confirmationFields('SubscriptionConfirmation'), '2'],
  ];

  it.each(cases)('both accept a %s', async (_name, fields, version) => {
    const message = signed(fields(), version);
    expect(await oracle(message)).toBeNull();
    for (const url of fetched) expect(url).toBe(CERT_URL); // it caches per URL, so later cases may not fetch
    expect(await ours(message)).toBe('accepted');
  });

  it('both reject a tampered Message', async () => {
    const message = { ...signed(notificationFields(), '2'), Message: '{"notificationType":"Delivery"}' };
    expect(await oracle(message)).toBeInstanceOf(Error);
    expect(await ours(message)).toBe(401);
  });

  it('both reject a signature lifted from another message', async () => {
    const message = { ...signed(notificationFields(), '1'), Signature: signed(notificationFields(), '1').Signature! };
    expect(await oracle(message)).toBeInstanceOf(Error);
    expect(await ours(message)).toBe(401);
  });
});

describe('where ours is stricter', () => {
  it.each([
    [
      'a query that makes the path end in .pem',
      'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123.pem?x=.pem',
    ],
    ['any path with a .pem query', 'https://sns.us-east-1.amazonaws.com/anything?x=.pem'],
    [
      'a host label that is not the topic region',
      'https://sns.not-a-region.amazonaws.com/SimpleNotificationService-0123.pem',
    ],
    ['another real region than the topic', 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123.pem'],
    ['an upper-case host', 'https://SNS.US-EAST-1.AMAZONAWS.COM/SimpleNotificationService-0123.pem'],
  ])('sns-validator accepts %s; ours rejects it before fetching', async (_why, url) => {
    const message = signed(notificationFields({ SigningCertURL: url }));
    expect(await oracle(message)).toBeNull();
    expect(fetched).toEqual([url]);
    const certificates = recordingCertificates();
    const error = await rejection(makeProvider({ certificates }).receive(toRequest(message)));
    expect(error.status).toBe(401);
    expect(certificates.calls).toEqual([]);
  });

  it('sns-validator accepts a month-old message (no Timestamp check); ours rejects it as stale (past the inbox TTL less a day)', async () => {
    const message = signed(notificationFields({ Timestamp: new Date(NOW - 30 * 24 * 60 * 60 * 1000).toISOString() }));
    expect(await oracle(message)).toBeNull();
    expect(await ours(message)).toBe(401);
  });

  it('sns-validator accepts any topic; ours refuses a topic off the allowlist with 403', async () => {
    const message = signed(notificationFields({ TopicArn: OTHER_TOPIC_ARN }));
    expect(await oracle(message)).toBeNull();
    expect(await ours(message)).toBe(403);
  });
});

describe('where sns-validator is wrong', () => {
  it.each(['1', '2'] as const)(
    'rejects a correctly signed v%s UnsubscribeConfirmation (it leaves Token out of the string to sign); ours accepts it',
    async (version) => {
      const message = signed(confirmationFields('UnsubscribeConfirmation'), version);
      const error = await oracle(message);
      expect(error?.message).toMatch(/signature is invalid/);
      expect(await ours(message)).toBe('accepted');
    },
  );
});
