/** Signature verification: v1 and v2, every signed field covered, strict base64, version policy. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../../lambdas/core/errors.js';
import { parseSnsEnvelope } from '../../../lambdas/core/providers/ses/sns/envelope.js';
import { verifySnsMessageWithKey, verifySnsSignature } from '../../../lambdas/core/providers/ses/sns/signature.js';
import { carriesEvents } from '../support/receipt.js';
import {
  confirmationFields,
  makeProvider,
  notificationFields,
  otherCertificate,
  recordingCertificates,
  rejection,
  signed,
  signingCertificate,
  toRequest,
} from './fixtures.js';

const key = () => signingCertificate().publicKey;

describe('SNS signature', () => {
  it.each(['1', '2'] as const)('accepts a SignatureVersion %s Notification', async (version) => {
    const receipt = await makeProvider().receive(toRequest(signed(notificationFields(), version)));
    expect(receipt.events).toHaveLength(1);
  });

  it.each(['1', '2'] as const)('accepts a SignatureVersion %s Notification with a Subject', async (version) => {
    const receipt = await makeProvider().receive(
      toRequest(signed(notificationFields({ Subject: 'Amazon SES Email Event Notification' }), version)),
    );
    expect(receipt.events).toHaveLength(1);
  });

  it('accepts an empty Subject that was signed', () => {
    expect(() =>
      verifySnsMessageWithKey(JSON.stringify(signed(notificationFields({ Subject: '' }))), key()),
    ).not.toThrow();
  });

  it('rejects a Subject added after signing (absent was signed)', () => {
    const message = { ...signed(notificationFields()), Subject: '' };
    expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).toThrow(AuthenticationError);
  });

  it('rejects a Subject removed after signing', () => {
    const { Subject: _dropped, ...message } = signed(notificationFields({ Subject: 'hi' }));
    expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).toThrow(AuthenticationError);
  });

  it.each(['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn'])(
    'rejects a Notification with %s altered',
    (field) => {
      const message: Record<string, string> = { ...signed(notificationFields({ Subject: 's' })) };
      message[field] = field === 'Timestamp' ? '2026-03-01T12:00:00.001Z' : `${message[field]}x`;
      expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).toThrow(/does not verify/);
    },
  );

  it('rejects a Notification whose Type was changed to a confirmation', () => {
    const message = {
      ...signed(notificationFields()),
      Type: 'UnsubscribeConfirmation',
      Token: 't',
      SubscribeURL: 'https://x',
    };
    expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).toThrow(AuthenticationError);
  });

  it.each(['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn'])(
    'rejects a SubscriptionConfirmation with %s altered',
    (field) => {
      const message: Record<string, string> = { ...signed(confirmationFields('SubscriptionConfirmation')) };
      message[field] = `${message[field]}x`;
      expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).toThrow(/does not verify/);
    },
  );

  it('does not cover unsigned fields: UnsubscribeURL may change without breaking the signature', () => {
    const message = { ...signed(notificationFields()), UnsubscribeURL: 'https://elsewhere.example/' };
    expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).not.toThrow();
  });

  it('rejects a signature made with another key', async () => {
    const message = signed(notificationFields(), '2', otherCertificate().privateKey);
    const error = await rejection(makeProvider().receive(toRequest(message)));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
  });

  it('rejects a v2 signature relabelled as v1 (digest is part of the check)', () => {
    const message = { ...signed(notificationFields(), '2'), SignatureVersion: '1' };
    expect(() => verifySnsMessageWithKey(JSON.stringify(message), key())).toThrow(/does not verify/);
  });

  // Each mangling still decodes to the very same bytes under Buffer.from(x, 'base64'), so only the
  // strict decoder stands between these and a passing signature check.
  it.each([
    ['with a newline inside', (s: string) => `${s.slice(0, 20)}\n${s.slice(20)}`],
    ['with garbage appended', (s: string) => `${s}!!`],
    ['without its padding', (s: string) => s.replace(/=+$/, '')],
    ['in the url-safe alphabet', (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_')],
  ])('rejects a Signature that is not strict base64 (%s)', (_why, mangle) => {
    let message = signed(notificationFields());
    // (the url-safe case needs a '+' or '/' to swap; almost every signature has one)
    while (!/[+/]/.test(message['Signature']!)) message = signed(notificationFields());
    const envelope = parseSnsEnvelope(JSON.stringify(message));
    const mangled = mangle(message['Signature']!);
    expect(mangled).not.toBe(message['Signature']);
    expect(Buffer.from(mangled, 'base64').equals(Buffer.from(message['Signature']!, 'base64'))).toBe(true);
    expect(() => verifySnsSignature(envelope, key())).not.toThrow(); // control
    expect(() => verifySnsSignature({ ...envelope, Signature: mangled }, key())).toThrow(/not base64/);
  });

  it('rejects an empty Signature', async () => {
    const error = await rejection(
      makeProvider().receive(toRequest({ ...signed(notificationFields()), Signature: '' })),
    );
    expect(error.status).toBe(400);
  });

  it.each(['3', '0', '', ' 2', '2.0', 'v2'])('rejects SignatureVersion %j', async (version) => {
    const message = { ...signed(notificationFields()), SignatureVersion: version };
    const certificates = recordingCertificates();
    const error = await rejection(makeProvider({ certificates }).receive(toRequest(message)));
    expect(error.status).toBe(version === '' ? 400 : 401);
    expect(certificates.calls).toEqual([]);
  });

  it('rejects SignatureVersion 1 when SNS_MIN_SIGNATURE_VERSION is 2, before any fetch', async () => {
    const certificates = recordingCertificates();
    const provider = makeProvider({ certificates, settings: { SNS_MIN_SIGNATURE_VERSION: '2' } });
    const error = await rejection(provider.receive(toRequest(signed(notificationFields(), '1'))));
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/minimum/);
    expect(certificates.calls).toEqual([]);
    // control: the same provider accepts version 2
    await expect(provider.receive(toRequest(signed(notificationFields(), '2')))).resolves.toSatisfy(
      carriesEvents('ses'),
    );
  });

  it('rejects a certificate key that is not RSA', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(() => verifySnsMessageWithKey(JSON.stringify(signed(notificationFields())), ec)).toThrow(/RSA/);
  });

  it('verifySnsMessageWithKey returns the parsed envelope', () => {
    const fields = notificationFields();
    expect(verifySnsMessageWithKey(JSON.stringify(signed(fields)), key()).MessageId).toBe(fields.MessageId);
  });
});
