/**
 * Shared SES/SNS test fixtures. The RSA key and certificate are generated once per test file
 * (vitest isolates modules per file) because RSA key generation is the slow part.
 */
import { type KeyObject, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CertificateSource, NonceStore, ProviderDeps, WebhookProvider } from '../../../lambdas/core/provider.js';
import { sesProvider } from '../../../lambdas/core/providers/ses/index.js';
import { lowerCaseHeaders, type WebhookRequest } from '../../../lambdas/core/request.js';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../../../lib/demo/self-signed-certificate.js';
import {
  type SignedSnsMessage,
  type SnsFields,
  type SnsSignatureVersion,
  signSnsMessage,
  snsHttpRequest,
} from '../../../lib/demo/ses.js';

export const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:ses-feedback';
export const OTHER_TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:someone-elses-topic';
export const CERT_URL =
  'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123456789abcdef0123456789abcdef.pem';
export const NOW = Date.parse('2026-03-01T12:00:00.000Z');
export const NOW_ISO = new Date(NOW).toISOString();

/**
 * AWS's published SES examples in test/fixtures/genuine/ses (sources in its README) that make actionable
 * events, so the edge keeps an inbox row for each: file names without `.json`.
 */
export const GENUINE_SES_EXAMPLES = [
  'event-delivery',
  'event-bounce',
  'event-complaint',
  'event-subscription',
  'notification-delivery',
  'notification-bounce-without-dsn',
  'notification-bounce-with-dsn',
  'notification-complaint-with-feedback',
  'notification-complaint-without-feedback',
];

/** One of AWS's published SES examples (test/fixtures/genuine/ses), as published: `name` without `.json`. */
export function genuineSesExample(name: string): string {
  return readFileSync(new URL(`../../fixtures/genuine/ses/${name}.json`, import.meta.url), 'utf8');
}

let signer: SelfSignedCertificate | undefined;
let stranger: SelfSignedCertificate | undefined;

/** The key pair "SNS" signs with in this file. */
export function signingCertificate(): SelfSignedCertificate {
  signer ??= createSelfSignedCertificate();
  return signer;
}

/** A second, unrelated key pair (for wrong-key tests). */
export function otherCertificate(): SelfSignedCertificate {
  stranger ??= createSelfSignedCertificate();
  return stranger;
}

export interface RecordingCertificates extends CertificateSource {
  readonly calls: string[];
}

/** Serves `key` for any URL and records every call, so tests can assert "never fetched". */
export function recordingCertificates(key: KeyObject = signingCertificate().publicKey): RecordingCertificates {
  const calls: string[] = [];
  return {
    calls,
    get: async (url: string) => {
      calls.push(url);
      return key;
    },
  };
}

const unusedNonces: NonceStore = {
  claim: () => {
    throw new Error('SES must not use the nonce store');
  },
};

export function makeDeps(overrides: Partial<ProviderDeps> = {}): ProviderDeps {
  return {
    credentials: [TOPIC_ARN],
    now: () => NOW,
    nonces: unusedNonces,
    certificates: recordingCertificates(),
    settings: {},
    ...overrides,
  };
}

export function makeProvider(overrides: Partial<ProviderDeps> = {}): WebhookProvider {
  return sesProvider.create(makeDeps(overrides));
}

/** A realistic SES bounce document, used as the default Message. */
export function bouncePayload(email = 'Bounced@Example.com'): Record<string, unknown> {
  return {
    notificationType: 'Bounce',
    bounce: {
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [
        { emailAddress: email, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
      ],
      timestamp: '2026-03-01T11:59:00.000Z',
      feedbackId: '0100018e-feedback',
    },
    mail: {
      timestamp: '2026-03-01T11:58:00.000Z',
      messageId: '0100018e-mail',
      source: 'sender@example.com',
      destination: [email],
    },
  };
}

export function notificationFields(overrides: Partial<SnsFields> = {}): SnsFields {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: TOPIC_ARN,
    Message: JSON.stringify(bouncePayload()),
    Timestamp: NOW_ISO,
    SigningCertURL: CERT_URL,
    UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TOPIC_ARN}:x`,
    ...overrides,
  };
}

export function confirmationFields(
  type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation',
  overrides: Partial<SnsFields> = {},
): SnsFields {
  return {
    Type: type,
    MessageId: randomUUID(),
    Token: '2336412f37fb687f5d51e6e2425f004aed43aa49bcb3d2a7bd8bd96d0d31de7ba',
    TopicArn: TOPIC_ARN,
    Message: `You have chosen to subscribe to the topic ${TOPIC_ARN}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
    SubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC_ARN}&Token=2336412f`,
    Timestamp: NOW_ISO,
    SigningCertURL: CERT_URL,
    ...overrides,
  };
}

/** Signs with this file's key (or `key`). */
export function signed(
  fields: SnsFields,
  version: SnsSignatureVersion = '2',
  key: KeyObject = signingCertificate().privateKey,
): SignedSnsMessage {
  return signSnsMessage(fields, key, version);
}

/** The request SNS would send for `message`; header overrides set to undefined are removed. */
export function toRequest(
  message: Record<string, unknown>,
  headerOverrides: Record<string, string | undefined> = {},
  body?: string,
): WebhookRequest {
  const { headers } = snsHttpRequest(message as SignedSnsMessage);
  const merged: Record<string, string | undefined> = { ...headers, ...headerOverrides };
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) clean[name] = String(value);
  return { body: Buffer.from(body ?? JSON.stringify(message), 'utf8'), headers: lowerCaseHeaders(clean) };
}

/** Runs `promise` and returns the error it rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number; code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { status?: number; code?: string };
  }
  throw new Error('expected a rejection, but the promise resolved');
}
