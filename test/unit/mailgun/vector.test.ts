/** The self-generated (not official: Mailgun publishes none) vector from shared/reference/providers/mailgun.md. */
import { describe, expect, it } from 'vitest';
import { mailgunKeyBytes } from '../../../lambdas/core/providers/mailgun/index.js';
import { verifyMailgunSignature } from '../../../lambdas/core/providers/mailgun/verify.js';
import { mailgunSignature } from '../../../lib/demo/mailgun.js';
import { mailgun, request } from './support.js';

const VECTOR = {
  key: 'test-signing-key-not-real',
  timestamp: '1529006854',
  token: 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0',
  signature: '8a30539f63b8fee999e07357177140c4cfb56686189fee5ca46ae837a2a58646',
};

const body = {
  signature: { timestamp: VECTOR.timestamp, token: VECTOR.token, signature: VECTOR.signature },
  'event-data': {
    event: 'failed',
    severity: 'permanent',
    reason: 'bounce',
    id: 'DACSsAdVSeGpLid7TN03WA',
    timestamp: 1529006854.329574,
    recipient: 'alice@example.com',
    'delivery-status': { code: 550, 'enhanced-code': '5.1.1', message: '550 5.1.1 No such user', description: '' },
  },
};

describe('Mailgun vector', () => {
  it('the demo signer reproduces the vector (HMAC over timestamp+token, key as UTF-8)', () => {
    expect(mailgunSignature(VECTOR.key, VECTOR.timestamp, VECTOR.token)).toBe(VECTOR.signature);
  });

  it('verifies the vector', () => {
    const text = JSON.stringify(body);
    expect(verifyMailgunSignature(body, text, mailgunKeyBytes([VECTOR.key]))).toEqual({
      timestampText: VECTOR.timestamp,
      signedAtSeconds: 1529006854,
      token: VECTOR.token,
    });
  });

  it('receives the vector under a clock pinned next to its timestamp', async () => {
    const { provider, nonces } = mailgun({ credentials: [VECTOR.key], nowMs: 1529006854_000 + 10_000 });
    const text = JSON.stringify(body);
    const { events } = await provider.receive(request(text));
    expect(events).toEqual([
      {
        provider: 'mailgun',
        eventId: 'DACSsAdVSeGpLid7TN03WA:1529006854.329574',
        recipient: 'alice@example.com',
        kind: 'hard_bounce',
        occurredAt: 1529006854330,
        detail: {
          status: '5.1.1',
          diagnosticCode: '550 5.1.1 No such user',
          bounceType: 'permanent',
          bounceSubType: 'bounce',
          providerEventType: 'failed',
        },
        raw: text,
        // No From header and no envelope: the provider as a whole.
        sender: 'mailgun',
      },
    ]);
    expect(nonces.claims).toHaveLength(1);
  });
});
