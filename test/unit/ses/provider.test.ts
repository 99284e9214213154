/** The SES provider end to end: allowlist, check order, freshness, control messages, configuration. */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  ForbiddenSenderError,
  StaleRequestError,
  TransientError,
} from '../../../lambdas/core/errors.js';
import type { CertificateSource } from '../../../lambdas/core/provider.js';
import { sesProvider } from '../../../lambdas/core/providers/ses/index.js';
import { carriesEvents } from '../support/receipt.js';
import {
  CERT_URL,
  confirmationFields,
  makeDeps,
  makeProvider,
  NOW,
  notificationFields,
  OTHER_TOPIC_ARN,
  otherCertificate,
  recordingCertificates,
  rejection,
  signed,
  TOPIC_ARN,
  toRequest,
} from './fixtures.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('sesProvider definition', () => {
  it('is the ses route, configured by SNS_TOPIC_ARNS, with no secret', () => {
    expect(sesProvider.name).toBe('ses');
    expect(sesProvider.credentialsVariable).toBe('SNS_TOPIC_ARNS');
    expect(sesProvider.secretArnVariable).toBeUndefined();
    expect(makeProvider().name).toBe('ses');
  });

  it('refuses to build with an allowlist entry that is not a topic ARN', () => {
    expect(() => sesProvider.create(makeDeps({ credentials: [TOPIC_ARN, 'my-topic'] }))).toThrow(
      /not an SNS topic ARN/,
    );
  });

  it('refuses to build with an empty allowlist', () => {
    expect(() => sesProvider.create(makeDeps({ credentials: [' ', ''] }))).toThrow(/empty/);
  });

  it.each([
    ['SNS_MIN_SIGNATURE_VERSION', '3'],
    ['SNS_MAX_AGE_SECONDS', 'an hour'],
    ['SNS_MAX_AGE_SECONDS', '0'],
    ['SNS_MAX_FUTURE_SECONDS', '-1'],
    ['SNS_MAX_AGE_SECONDS', '2592000'],
    ['SNS_MAX_AGE_SECONDS', '1e6'],
    ['SNS_MAX_FUTURE_SECONDS', '172801'],
  ])('refuses to build with %s=%j', (name, value) => {
    expect(() => sesProvider.create(makeDeps({ settings: { [name]: value } }))).toThrow(new RegExp(name));
  });

  it('trims allowlist entries (comma-separated environment values)', async () => {
    const provider = makeProvider({ credentials: [` ${OTHER_TOPIC_ARN}`, ` ${TOPIC_ARN} `] });
    await expect(provider.receive(toRequest(signed(notificationFields())))).resolves.toSatisfy(carriesEvents('ses'));
  });
});

describe('TopicArn allowlist', () => {
  it('rejects a validly signed Notification from a topic off the allowlist with 403, before any fetch', async () => {
    const certificates = recordingCertificates();
    const error = await rejection(
      makeProvider({ certificates }).receive(toRequest(signed(notificationFields({ TopicArn: OTHER_TOPIC_ARN })))),
    );
    expect(error).toBeInstanceOf(ForbiddenSenderError);
    expect(error.status).toBe(403);
    expect(certificates.calls).toEqual([]);
  });

  it('rejects a validly signed SubscriptionConfirmation from a topic off the allowlist with 403', async () => {
    const certificates = recordingCertificates();
    const message = signed(confirmationFields('SubscriptionConfirmation', { TopicArn: OTHER_TOPIC_ARN }));
    const error = await rejection(makeProvider({ certificates }).receive(toRequest(message)));
    expect(error.status).toBe(403);
    expect(certificates.calls).toEqual([]);
  });

  it('matches ARNs exactly (same name, another account)', async () => {
    const error = await rejection(
      makeProvider().receive(
        toRequest(signed(notificationFields({ TopicArn: TOPIC_ARN.replace('123456789012', '210987654321') }))),
      ),
    );
    expect(error.status).toBe(403);
  });

  it('accepts any topic on a multi-entry allowlist', async () => {
    const provider = makeProvider({ credentials: [TOPIC_ARN, OTHER_TOPIC_ARN] });
    const receipt = await provider.receive(toRequest(signed(notificationFields({ TopicArn: OTHER_TOPIC_ARN }))));
    expect(receipt.events).toHaveLength(1);
  });
});

describe('check order', () => {
  it('allowlist before version, cert URL, freshness and signature', async () => {
    const certificates = recordingCertificates();
    const message = {
      ...signed(
        notificationFields({
          TopicArn: OTHER_TOPIC_ARN,
          SigningCertURL: 'https://evil.example/x.pem',
          Timestamp: iso(0),
        }),
      ),
      SignatureVersion: '9',
      Signature: 'AAAA',
    };
    const error = await rejection(makeProvider({ certificates }).receive(toRequest(message)));
    expect(error).toBeInstanceOf(ForbiddenSenderError);
    expect(certificates.calls).toEqual([]);
  });

  it('version before cert URL', async () => {
    const message = {
      ...signed(notificationFields({ SigningCertURL: 'https://evil.example/x.pem' })),
      SignatureVersion: '9',
    };
    const error = await rejection(makeProvider().receive(toRequest(message)));
    expect(error.message).toMatch(/SignatureVersion/);
  });

  it('cert URL before freshness', async () => {
    const message = signed(notificationFields({ SigningCertURL: 'https://evil.example/x.pem', Timestamp: iso(0) }));
    const error = await rejection(makeProvider().receive(toRequest(message)));
    expect(error.message).toMatch(/SigningCertURL/);
  });

  it('freshness before the certificate fetch', async () => {
    const certificates = recordingCertificates();
    const message = signed(notificationFields({ Timestamp: iso(NOW - 30 * 24 * 60 * 60 * 1000) }));
    const error = await rejection(makeProvider({ certificates }).receive(toRequest(message)));
    expect(error).toBeInstanceOf(StaleRequestError);
    expect(certificates.calls).toEqual([]);
  });

  it('certificate fetch before signature: a source outage is a 503 even for a bad signature', async () => {
    const failing: CertificateSource = { get: async () => Promise.reject(new TransientError('down')) };
    const message = { ...signed(notificationFields()), Signature: 'AAAA' };
    const error = await rejection(makeProvider({ certificates: failing }).receive(toRequest(message)));
    expect(error.status).toBe(503);
  });

  it('signature before parsing Message: a forged body with a garbage Message is a 401, not a 400', async () => {
    const message = { ...signed(notificationFields()), Message: 'not json' };
    const error = await rejection(makeProvider().receive(toRequest(message)));
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it.each([
    ['not JSON', 'hello'],
    ['JSON but not SES', '{"hello":"world"}'],
    [
      'a bounce without recipients',
      '{"notificationType":"Bounce","bounce":{"bounceType":"Permanent","bouncedRecipients":[]}}',
    ],
    ['conflicting types', '{"notificationType":"Bounce","eventType":"Complaint"}'],
  ])(
    'acknowledges an authentic Notification whose Message is %s: one ignored event, never a 400 (SNS would drop it)',
    async (_, message) => {
      const certificates = recordingCertificates();
      const receipt = await makeProvider({ certificates }).receive(
        toRequest(signed(notificationFields({ Message: message }))),
      );
      expect(receipt.events).toHaveLength(1);
      expect(receipt.events[0]).toMatchObject({ kind: 'ignored', recipient: '', provider: 'ses' });
      expect(receipt.events[0]!.ignoredReason).toMatch(/^unreadable SES message: /);
      expect(certificates.calls).toEqual([CERT_URL]);
    },
  );

  it('still refuses the same Message when the signature does not verify (401), or the topic is not allowed (403)', async () => {
    const fields = notificationFields({ Message: 'hello' });
    const tampered = { ...signed(fields), Message: 'hello!' };
    expect((await rejection(makeProvider().receive(toRequest(tampered)))).status).toBe(401);
    expect(
      (await rejection(makeProvider({ credentials: [OTHER_TOPIC_ARN] }).receive(toRequest(signed(fields))))).status,
    ).toBe(403);
  });
});

describe('certificate source errors', () => {
  it('wraps an unexpected source error as a 503 so SNS retries', async () => {
    const broken: CertificateSource = { get: async () => Promise.reject(new Error('ECONNRESET')) };
    const error = await rejection(
      makeProvider({ certificates: broken }).receive(toRequest(signed(notificationFields()))),
    );
    expect(error).toBeInstanceOf(TransientError);
    expect(error.status).toBe(503);
  });

  it("passes the source's own AuthenticationError through (401)", async () => {
    const refusing: CertificateSource = { get: async () => Promise.reject(new AuthenticationError('no such cert')) };
    const error = await rejection(
      makeProvider({ certificates: refusing }).receive(toRequest(signed(notificationFields()))),
    );
    expect(error.status).toBe(401);
  });

  it('rejects a message when the source serves a different certificate', async () => {
    const certificates = recordingCertificates(otherCertificate().publicKey);
    const error = await rejection(makeProvider({ certificates }).receive(toRequest(signed(notificationFields()))));
    expect(error.status).toBe(401);
  });
});

describe('freshness', () => {
  const receiveAt = (timestampMs: number, settings: Record<string, string> = {}) =>
    makeProvider({ settings }).receive(toRequest(signed(notificationFields({ Timestamp: iso(timestampMs) }))));

  const DEFAULT_MAX_AGE_MS = 29 * 24 * 60 * 60 * 1000;

  it('accepts a Timestamp exactly SNS_MAX_AGE_SECONDS (default: the 30-day inbox TTL less a day) old', async () => {
    await expect(receiveAt(NOW - DEFAULT_MAX_AGE_MS)).resolves.toSatisfy(carriesEvents('ses'));
  });

  it('accepts a 6-hour-old message (a backlog SNS delivers late) with the defaults', async () => {
    await expect(receiveAt(NOW - 6 * 60 * 60 * 1000)).resolves.toSatisfy(carriesEvents('ses'));
  });

  it('the default follows INBOX_TTL_DAYS', async () => {
    const tenDays = { INBOX_TTL_DAYS: '10' };
    await expect(receiveAt(NOW - 9 * 24 * 60 * 60 * 1000, tenDays)).resolves.toSatisfy(carriesEvents('ses'));
    expect(await rejection(receiveAt(NOW - 9 * 24 * 60 * 60 * 1000 - 1, tenDays))).toBeInstanceOf(StaleRequestError);
  });

  it('rejects a Timestamp one millisecond older than the default', async () => {
    const error = await rejection(receiveAt(NOW - DEFAULT_MAX_AGE_MS - 1));
    expect(error).toBeInstanceOf(StaleRequestError);
    expect(error.status).toBe(401);
  });

  it('accepts a Timestamp exactly SNS_MAX_FUTURE_SECONDS (default 300) ahead', async () => {
    await expect(receiveAt(NOW + 300_000)).resolves.toSatisfy(carriesEvents('ses'));
  });

  it('rejects a Timestamp more than the default 300 s in the future', async () => {
    const error = await rejection(receiveAt(NOW + 300_001));
    expect(error).toBeInstanceOf(StaleRequestError);
  });

  it('honours SNS_MAX_AGE_SECONDS', async () => {
    await expect(receiveAt(NOW - 60_000, { SNS_MAX_AGE_SECONDS: '60' })).resolves.toSatisfy(carriesEvents('ses'));
    expect(await rejection(receiveAt(NOW - 61_000, { SNS_MAX_AGE_SECONDS: '60' }))).toBeInstanceOf(StaleRequestError);
  });

  it('honours SNS_MAX_FUTURE_SECONDS', async () => {
    expect(await rejection(receiveAt(NOW + 2_000, { SNS_MAX_FUTURE_SECONDS: '1' }))).toBeInstanceOf(StaleRequestError);
  });

  it('uses deps.now, not the wall clock', async () => {
    const provider = makeProvider({ now: () => NOW + 30 * 24 * 60 * 60 * 1000 });
    const error = await rejection(provider.receive(toRequest(signed(notificationFields()))));
    expect(error).toBeInstanceOf(StaleRequestError);
  });

  it.each(['2026-03-01 12:00:00Z', '2026-03-01T12:00:00+00:00', '1772366400', 'yesterday', '2026-13-01T12:00:00.000Z'])(
    'rejects a signed Timestamp that is not SNS ISO-8601 UTC (%j)',
    async (timestamp) => {
      const error = await rejection(
        makeProvider().receive(toRequest(signed(notificationFields({ Timestamp: timestamp })))),
      );
      expect(error.status).toBe(400);
    },
  );
});

describe('control messages', () => {
  afterEach(() => vi.restoreAllMocks());

  it('returns a SubscriptionConfirmation as control, never fetching SubscribeURL', async () => {
    const https = createRequire(import.meta.url)('node:https') as typeof import('node:https');
    const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
    const spies = [
      vi.spyOn(globalThis, 'fetch'),
      vi.spyOn(https, 'get'),
      vi.spyOn(https, 'request'),
      vi.spyOn(http, 'get'),
      vi.spyOn(http, 'request'),
    ];
    const certificates = recordingCertificates();
    const fields = confirmationFields('SubscriptionConfirmation');
    const receipt = await makeProvider({ certificates }).receive(toRequest(signed(fields)));
    expect(receipt).toEqual({
      events: [],
      control: {
        type: 'SubscriptionConfirmation',
        topicArn: TOPIC_ARN,
        token: fields.Token,
        messageId: fields.MessageId,
      },
    });
    expect(certificates.calls).toEqual([CERT_URL]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('returns an UnsubscribeConfirmation as control', async () => {
    const fields = confirmationFields('UnsubscribeConfirmation');
    const receipt = await makeProvider().receive(toRequest(signed(fields, '1')));
    expect(receipt).toEqual({
      events: [],
      control: { type: 'UnsubscribeConfirmation', topicArn: TOPIC_ARN, messageId: fields.MessageId },
    });
  });

  it('does not treat a forged SubscriptionConfirmation as control', async () => {
    const message = { ...signed(confirmationFields('SubscriptionConfirmation')), Token: 'attacker-token' };
    expect(await rejection(makeProvider().receive(toRequest(message)))).toBeInstanceOf(AuthenticationError);
  });
});
