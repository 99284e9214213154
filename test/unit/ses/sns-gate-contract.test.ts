/**
 * The SNS gate's exact answers: the message of every refusal (the edge returns and logs it), the
 * header rules, the settings, and the dead-letter waiver of the age limit (and nothing else).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ForbiddenSenderError,
  MalformedRequestError,
  StaleRequestError,
  TransientError,
} from '../../../lambdas/core/errors.js';
import { sesProvider } from '../../../lambdas/core/providers/ses/index.js';
import { assertSigningCertUrl } from '../../../lambdas/core/providers/ses/sns/cert-url.js';
import {
  parseSnsEnvelope,
  readSnsRequest,
  snsRequestFromQueuedBody,
} from '../../../lambdas/core/providers/ses/sns/envelope.js';
import { readSnsSettings } from '../../../lambdas/core/providers/ses/sns/settings.js';
import { verifySnsSignature } from '../../../lambdas/core/providers/ses/sns/signature.js';
import { parseTopicArn } from '../../../lambdas/core/providers/ses/sns/topic-arn.js';
import { createSnsVerifier, parseSnsTimestamp } from '../../../lambdas/core/providers/ses/verify.js';
import {
  makeProvider,
  NOW,
  notificationFields,
  OTHER_TOPIC_ARN,
  recordingCertificates,
  rejection,
  signed,
  signingCertificate,
  TOPIC_ARN,
  toRequest,
} from './fixtures.js';

const PEM = '/SimpleNotificationService-0123456789abcdef.pem';
const HOST = 'https://sns.us-east-1.amazonaws.com';
const useast1 = parseTopicArn('arn:aws:sns:us-east-1:123456789012:feedback');
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('SigningCertURL refusals name their reason', () => {
  it.each([
    ['a forbidden character', `${HOST}${PEM}?x`, 'SigningCertURL contains a forbidden character'],
    ['a space', `${HOST}/Simple NotificationService-ab.pem`, 'SigningCertURL contains a forbidden character'],
    ['an explicit default port (WHATWG drops it)', `${HOST}:443${PEM}`, 'SigningCertURL has a port'],
    ['an empty port', `${HOST}:${PEM}`, 'SigningCertURL has a port'],
    ['no scheme', `sns.us-east-1.amazonaws.com${PEM}`, 'SigningCertURL is not a URL'],
    ['http', `http://sns.us-east-1.amazonaws.com${PEM}`, 'SigningCertURL is not https'],
    [
      'another region',
      `https://sns.us-west-2.amazonaws.com${PEM}`,
      "SigningCertURL is not the topic region's SNS host",
    ],
    ['another file', `${HOST}/evil.pem`, 'SigningCertURL is not an SNS certificate path'],
    [
      'a file name with text after .pem',
      `${HOST}/SimpleNotificationService-ab.pemx`,
      'SigningCertURL is not an SNS certificate path',
    ],
    [
      'a path after the file name',
      `${HOST}/SimpleNotificationService-ab.pem/x`,
      'SigningCertURL is not an SNS certificate path',
    ],
    ['an upper-case host', `https://SNS.us-east-1.amazonaws.com${PEM}`, 'SigningCertURL is not in canonical form'],
  ])('%s', (_why, url, message) => {
    expect(() => assertSigningCertUrl(url, useast1)).toThrow(new AuthenticationError(message));
  });

  it.each([`${HOST}/SimpleNotificationService-a.pem`, `${HOST}/SimpleNotificationService-0123456789.pem`])(
    'accepts %s',
    (url) => {
      expect(assertSigningCertUrl(url, useast1)).toBe(url);
    },
  );
});

describe('TopicArn', () => {
  it.each([
    'xarn:aws:sns:us-east-1:123456789012:t',
    'arn:aws:sns:u-east-1:123456789012:t',
    'arn:aws:sns:1s-east-1:123456789012:t',
    'arn:aws:sns:us-1:123456789012:t',
    'arn:aws:sns:us-e4st-1:123456789012:t',
    'arn:aws:sns:us-east-100:123456789012:t',
    'arn:aws:sns:us-east-x:123456789012:t',
    'arn:aws:sns:us-east-1:1234567890123:t',
    'arn:aws:sns:us-east-1:12345678901a:t',
    'arn:aws:sns:us-east-1:123456789012:t.x',
    'arn:aws:sns:us-east-1:123456789012:t/x',
    `arn:aws:sns:us-east-1:123456789012:${'a'.repeat(257)}`,
  ])('refuses %j with its exact message', (arn) => {
    expect(() => parseTopicArn(arn)).toThrow(new MalformedRequestError('TopicArn is not an SNS topic ARN'));
  });

  it.each([
    'arn:aws:sns:eu-central-2:123456789012:t',
    'arn:aws:sns:us-east-12:123456789012:t',
    'arn:aws:sns:us-east-1:123456789012:T',
    `arn:aws:sns:us-east-1:123456789012:${'a'.repeat(256)}`,
    `arn:aws:sns:us-east-1:123456789012:${'a'.repeat(256)}.fifo`,
  ])('accepts %j', (arn) => {
    expect(parseTopicArn(arn).arn).toBe(arn);
  });
});

describe('SNS Timestamp', () => {
  it.each(['2026-03-01T12:00:00Z', '2026-03-01T12:00:00.1Z', '2026-03-01T12:00:00.123456789Z'])(
    'accepts %s',
    (value) => {
      expect(parseSnsTimestamp(value)).toBe(
        Date.parse('2026-03-01T12:00:00Z') + (value.includes('.1') ? 100 : 0) + (value.includes('.123') ? 23 : 0),
      );
    },
  );

  it.each([
    'x2026-03-01T12:00:00Z',
    '2026-03-01T12:00:00Zx',
    '202-03-01T12:00:00Z',
    '2026-3-01T12:00:00Z',
    '2026-03-1T12:00:00Z',
    '2026-03-01T1:00:00Z',
    '2026-03-01T12:0:00Z',
    '2026-03-01T12:00:0Z',
    '2026-03-01T12:00:00.Z',
    '2026-03-01T12:00:00.1234567890Z',
    '2026-03-01T12:00:00.aZ',
    '2026-03-01T12:00:00+00:00',
    'a026-03-01T12:00:00Z',
    '2026-a3-01T12:00:00Z',
    '2026-03-a1T12:00:00Z',
    '2026-03-01Ta2:00:00Z',
    '2026-03-01T12:a0:00Z',
    '2026-03-01T12:00:a0Z',
  ])('refuses %s as not ISO-8601 UTC', (value) => {
    expect(() => parseSnsTimestamp(value)).toThrow(
      new MalformedRequestError('SNS Timestamp is not an ISO-8601 UTC time'),
    );
  });

  it('refuses the right shape holding an impossible time', () => {
    expect(() => parseSnsTimestamp('2026-13-01T00:00:00Z')).toThrow(
      new MalformedRequestError('SNS Timestamp is not a timestamp'),
    );
  });
});

describe('SNS request headers', () => {
  const request = (headers: Record<string, string | undefined>) => toRequest(signed(notificationFields()), headers);

  it('reads a request without the raw-delivery header, or with it set to false', () => {
    expect(readSnsRequest(request({})).Type).toBe('Notification');
    expect(readSnsRequest(request({ 'x-amz-sns-rawdelivery': 'false' })).Type).toBe('Notification');
  });

  it.each(['true', ' TRUE ', 'True'])('refuses raw message delivery (%j) with 400', async (value) => {
    const error = await rejection(makeProvider().receive(request({ 'x-amz-sns-rawdelivery': value })));
    expect(error).toBeInstanceOf(MalformedRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toBe('SNS raw message delivery carries no signature; disable it on the subscription');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '  '],
  ])('refuses a %s x-amz-sns-message-type header', (_why, value) => {
    expect(() => readSnsRequest(request({ 'x-amz-sns-message-type': value }))).toThrow(
      new MalformedRequestError('missing x-amz-sns-message-type header'),
    );
  });

  it('refuses a header that disagrees with the body Type', () => {
    expect(() => readSnsRequest(request({ 'x-amz-sns-message-type': 'UnsubscribeConfirmation' }))).toThrow(
      new MalformedRequestError('x-amz-sns-message-type header does not match the body Type'),
    );
  });
});

describe('SNS envelope body', () => {
  const body = (drop: string[]) => {
    const message: Record<string, unknown> = { ...signed(notificationFields()) };
    for (const field of drop) delete message[field];
    return JSON.stringify(message);
  };

  it.each([
    ['not JSON', '{', 'SNS envelope is not valid JSON'],
    ['not an object', '[]', 'SNS envelope is not a JSON object'],
    ['neither Type nor Signature', body(['Type', 'Signature']), 'body is not an SNS envelope'],
    ['Type without Signature', body(['Signature']), 'Signature is missing or not a string'],
    ['Signature without Type', body(['Type']), 'unknown SNS message Type'],
  ])('%s', (_why, text, message) => {
    expect(() => parseSnsEnvelope(text)).toThrow(new MalformedRequestError(message));
  });
});

describe('a queued body read as the request SNS would have POSTed', () => {
  it('takes the unsigned headers from a JSON envelope, and none from JSON that is not an object', () => {
    const envelope = { Type: 'Notification', MessageId: 'm-1', TopicArn: 'arn:aws:sns:us-east-1:123456789012:t' };
    const fromEnvelope = snsRequestFromQueuedBody(JSON.stringify(envelope));
    expect(fromEnvelope.headers['x-amz-sns-message-type']).toBe('Notification');
    expect(fromEnvelope.headers['x-amz-sns-message-id']).toBe('m-1');
    for (const body of ['null', '"Notification"', '42', 'not json']) {
      const request = snsRequestFromQueuedBody(body);
      expect(request.body.toString('utf8')).toBe(body);
      expect(request.headers['x-amz-sns-message-type']).toBe('');
      expect(request.headers['x-amz-sns-message-id']).toBe('');
    }
  });
});

describe('signature key and encoding', () => {
  const envelope = (fields = notificationFields()) => parseSnsEnvelope(JSON.stringify(signed(fields)));

  it('refuses a key that is not an RSA public key, even the matching private key', () => {
    const message = 'SNS signing certificate does not hold an RSA public key';
    expect(() => verifySnsSignature(envelope(), signingCertificate().privateKey)).toThrow(
      new AuthenticationError(message),
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(() => verifySnsSignature(envelope(), ec)).toThrow(new AuthenticationError(message));
  });

  it('refuses a Signature that is not base64, naming the field', () => {
    const broken = { ...envelope(), Signature: 'not base64!' };
    expect(() => verifySnsSignature(broken, signingCertificate().publicKey)).toThrow(
      new AuthenticationError('SNS Signature is not base64'),
    );
  });
});

describe('SNS settings', () => {
  it('defaults: version 1, the inbox TTL (30 days) less one day old, 300 s ahead', () => {
    expect(readSnsSettings({})).toEqual({
      minimumSignatureVersion: '1',
      window: { maxAgeMs: 29 * 86_400_000, maxFutureMs: 300_000 },
    });
  });

  it('trims the minimum version and allows no future skew at all', () => {
    expect(
      readSnsSettings({ SNS_MIN_SIGNATURE_VERSION: ' 2 ', SNS_MAX_FUTURE_SECONDS: '0', SNS_MAX_AGE_SECONDS: '60' }),
    ).toEqual({
      minimumSignatureVersion: '2',
      window: { maxAgeMs: 60_000, maxFutureMs: 0 },
    });
  });

  it('refuses a fractional or zero maximum age with the expected form in the message', () => {
    for (const value of ['90.5', '0']) {
      expect(() => readSnsSettings({ SNS_MAX_AGE_SECONDS: value })).toThrow(
        /^SNS_MAX_AGE_SECONDS must be a whole number of seconds, at least 1/,
      );
    }
  });

  it('the provider definition lists its three settings and its window', () => {
    expect(sesProvider.settings?.map((s) => s.variable)).toEqual([
      'SNS_MIN_SIGNATURE_VERSION',
      'SNS_MAX_AGE_SECONDS',
      'SNS_MAX_FUTURE_SECONDS',
    ]);
    for (const setting of sesProvider.settings ?? []) expect(setting.describe).toMatch(/SNS/);
    expect(sesProvider.signatureWindow?.({ SNS_MAX_AGE_SECONDS: '120' })).toEqual({
      window: { maxAgeMs: 120_000, maxFutureMs: 300_000 },
      variables: ['SNS_MAX_AGE_SECONDS', 'SNS_MAX_FUTURE_SECONDS'],
    });
  });
});

describe('verifier refusals', () => {
  const verifier = (certificates = recordingCertificates()) =>
    createSnsVerifier({
      allowedTopics: [TOPIC_ARN],
      certificates,
      now: () => NOW,
      minimumSignatureVersion: '1',
      window: { maxAgeMs: HOUR, maxFutureMs: 60_000 },
    });
  const request = (overrides = {}) => toRequest(signed(notificationFields(overrides)));

  it('a topic off the allowlist: 403 with the exact message', async () => {
    const error = await rejection(verifier()(request({ TopicArn: OTHER_TOPIC_ARN })));
    expect(error).toEqual(new ForbiddenSenderError('SNS topic is not on the allowlist'));
    expect(error.status).toBe(403);
  });

  it('a certificate source failure is a retryable outage that keeps its cause', async () => {
    const cause = new Error('connect ETIMEDOUT');
    const error = await rejection(verifier({ calls: [], get: () => Promise.reject(cause) })(request()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.message).toBe('SNS signing certificate could not be loaded');
    expect(error.cause).toBe(cause);
  });

  it('without options the age limit holds', async () => {
    const error = await rejection(verifier()(request({ Timestamp: iso(NOW - 2 * HOUR) })));
    expect(error).toEqual(new StaleRequestError('timestamp is too old'));
  });

  it('waiveMaxAge lifts the age limit only', async () => {
    const verify = verifier();
    const old = await verify(request({ Timestamp: iso(NOW - 48 * HOUR) }), { waiveMaxAge: true });
    expect(old.timestampMs).toBe(NOW - 48 * HOUR);
    const ahead = await rejection(verify(request({ Timestamp: iso(NOW + 2 * 60_000) }), { waiveMaxAge: true }));
    expect(ahead).toEqual(new StaleRequestError('timestamp is in the future'));
    const notWaived = await rejection(verify(request({ Timestamp: iso(NOW - 2 * HOUR) }), { waiveMaxAge: false }));
    expect(notWaived).toEqual(new StaleRequestError('timestamp is too old'));
  });

  it('the provider waives the age limit for its own SNS dead-letter queue only', async () => {
    const old = toRequest(signed(notificationFields({ Timestamp: iso(NOW - 30 * 24 * HOUR) })));
    const receipt = await makeProvider().receive(old, { fromSnsDeadLetterQueue: true });
    expect(receipt.events.map((e) => e.kind)).toEqual(['hard_bounce']);
    const error = await rejection(makeProvider().receive(old, { fromSnsDeadLetterQueue: false }));
    expect(error).toBeInstanceOf(StaleRequestError);
  });
});
