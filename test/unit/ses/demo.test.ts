/** The SES demo signer, checked end to end through the real provider and pinned-directory source. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinnedDirectoryCertificates } from '../../../lambdas/adapters/sns/certificates.js';
import { type ActionableKind, EVENT_KINDS } from '../../../lambdas/core/event.js';
import { sesProvider } from '../../../lambdas/core/providers/ses/index.js';
import { lowerCaseHeaders } from '../../../lambdas/core/request.js';
import { DEMO_TOPIC_ARN, sesDemo } from '../../../lib/demo/ses.js';
import type { DemoCredentials } from '../../../lib/demo/types.js';
import { makeDeps } from './fixtures.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
let credentials: DemoCredentials;
let dir: string;

beforeAll(() => {
  credentials = sesDemo.createCredentials();
  dir = mkdtempSync(path.join(tmpdir(), 'ratchet-ses-demo-'));
  writeFileSync(path.join(dir, credentials.pinnedCertificate!.fileName), credentials.pinnedCertificate!.pem);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const provider = () =>
  sesProvider.create(
    makeDeps({
      credentials: [credentials.credential],
      certificates: new PinnedDirectoryCertificates(dir),
      now: () => NOW,
    }),
  );

describe('sesDemo', () => {
  it('creates the demo topic ARN, a private key and an SNS-named pinned certificate', () => {
    expect(sesDemo.provider).toBe('ses');
    expect(credentials.credential).toBe(DEMO_TOPIC_ARN);
    expect(credentials.credential).toBe('arn:aws:sns:us-east-1:000000000000:ratchet-demo');
    expect(credentials.signingSecret).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(credentials.pinnedCertificate!.fileName).toMatch(/^SimpleNotificationService-[0-9a-f]{32}\.pem$/);
    expect(credentials.pinnedCertificate!.pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('signs a v2 Notification with SNS headers and a SigningCertURL on the pinned file name', () => {
    const { headers, body } = sesDemo.sign('hard_bounce', 'user@example.com', credentials, NOW);
    expect(headers['x-amz-sns-message-type']).toBe('Notification');
    expect(headers['content-type']).toBe('text/plain; charset=UTF-8');
    const envelope = JSON.parse(body) as Record<string, string>;
    expect(envelope['SignatureVersion']).toBe('2');
    expect(envelope['Timestamp']).toBe('2026-03-01T12:00:00.000Z');
    expect(envelope['SigningCertURL']).toBe(
      `https://sns.us-east-1.amazonaws.com/${credentials.pinnedCertificate!.fileName}`,
    );
    expect(headers['x-amz-sns-message-id']).toBe(envelope['MessageId']);
  });

  const expected: Record<
    Exclude<ActionableKind, 'subscribe'>,
    { kind: ActionableKind; providerEventType: string; detail?: object }
  > = {
    hard_bounce: {
      kind: 'hard_bounce',
      providerEventType: 'Bounce',
      detail: { bounceType: 'Permanent', bounceSubType: 'General' },
    },
    soft_bounce: {
      kind: 'soft_bounce',
      providerEventType: 'Bounce',
      detail: { bounceType: 'Transient', bounceSubType: 'MailboxFull' },
    },
    complaint: { kind: 'complaint', providerEventType: 'Complaint', detail: { complaintFeedbackType: 'abuse' } },
    delivered: { kind: 'delivered', providerEventType: 'Delivery' },
    unsubscribe: { kind: 'unsubscribe', providerEventType: 'Subscription' },
  };

  // (subscribe needs a topic: covered by test/unit/topics/demo-scopes.test.ts)
  it.each(EVENT_KINDS.filter((k): k is Exclude<ActionableKind, 'subscribe'> => k !== 'ignored' && k !== 'subscribe'))(
    'round-trips %s through the real provider',
    async (kind) => {
      const signedRequest = sesDemo.sign(kind, 'User@Example.com', credentials, NOW);
      const receipt = await provider().receive({
        body: Buffer.from(signedRequest.body),
        headers: lowerCaseHeaders(signedRequest.headers),
      });
      expect(receipt.events).toHaveLength(1);
      const [event] = receipt.events;
      expect(event).toMatchObject({
        provider: 'ses',
        recipient: 'user@example.com',
        kind: expected[kind].kind,
        detail: { providerEventType: expected[kind].providerEventType, ...expected[kind].detail },
        raw: signedRequest.body,
      });
      expect(event!.occurredAt).toBeLessThanOrEqual(NOW);
      expect(event!.occurredAt).toBeGreaterThan(NOW - 60_000);
    },
  );

  it('is rejected by a receiver that pins a different certificate', async () => {
    const other = sesDemo.createCredentials();
    writeFileSync(path.join(dir, other.pinnedCertificate!.fileName), other.pinnedCertificate!.pem);
    const signedRequest = sesDemo.sign(
      'complaint',
      'user@example.com',
      { ...credentials, pinnedCertificate: other.pinnedCertificate! },
      NOW,
    );
    await expect(
      provider().receive({ body: Buffer.from(signedRequest.body), headers: lowerCaseHeaders(signedRequest.headers) }),
    ).rejects.toMatchObject({ status: 401 });
  });
});
