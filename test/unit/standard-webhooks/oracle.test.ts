/** The reference library (standardwebhooks@1.1.1) as an oracle: what it signs, we verify, and vice versa. */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError } from '../../../lambdas/core/errors.js';
import { decodeStandardSecrets } from '../../../lambdas/core/providers/standard-webhooks/index.js';
import { verifyStandardWebhook } from '../../../lambdas/core/providers/standard-webhooks/verify.js';
import { SYMMETRIC_FIVE_MINUTES } from '../../../lambdas/core/time.js';
import { standardWebhooksDemo } from '../../../lib/demo/standard-webhooks.js';
import { propertyRuns } from '../support/property-runs.js';
import { NOW_MS, NOW_SECONDS, request } from '../support/provider.js';
import { SECRET, VECTOR_1 } from './support.js';

function ours(secret: string, payload: string | Buffer, headers: Record<string, string>, nowMs = NOW_MS): boolean {
  try {
    verifyStandardWebhook(request(payload, headers), decodeStandardSecrets([secret]), nowMs, SYMMETRIC_FIVE_MINUTES);
    return true;
  } catch {
    return false;
  }
}

/** The library reads Date.now(): pin it to NOW. */
function theirs(secret: string, payload: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(payload, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}

function librarySigned(secret: string, id: string, seconds: number, payload: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), payload),
  };
}

describe('standardwebhooks@1.1.1 oracle', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW_MS);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('its sign() reproduces official vector 1, and we verify what it signs', () => {
    const headers = librarySigned(VECTOR_1.secret, VECTOR_1.id, Number(VECTOR_1.timestamp), VECTOR_1.payload);
    expect(headers['webhook-signature']).toBe(VECTOR_1.signature);
    expect(ours(VECTOR_1.secret, VECTOR_1.payload, headers, Number(VECTOR_1.timestamp) * 1000)).toBe(true);
  });

  it('we verify whatever it signs: arbitrary Unicode bodies, ids and secrets', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9_:-]{1,64}$/);
    const secret = fc
      .uint8Array({ minLength: 24, maxLength: 64 })
      .map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
    const skew = fc.integer({ min: -300, max: 300 });
    fc.assert(
      fc.property(secret, id, skew, fc.string({ unit: 'grapheme', maxLength: 500 }), (key, msgId, delta, payload) => {
        const headers = librarySigned(key, msgId, Number(NOW_SECONDS) + delta, payload);
        expect(ours(key, payload, headers)).toBe(true);
        expect(theirs(key, payload, headers)).toBe(true);
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('it verifies what our demo signer signs, for every kind', () => {
    const credentials = standardWebhooksDemo.createCredentials();
    for (const kind of ['delivered', 'soft_bounce', 'hard_bounce', 'complaint', 'unsubscribe'] as const) {
      const signed = standardWebhooksDemo.sign(kind, 'demo@example.com', credentials, NOW_MS);
      expect(theirs(credentials.credential, signed.body, signed.headers)).toBe(true);
      expect(ours(credentials.credential, signed.body, signed.headers)).toBe(true);
    }
  });

  it('we agree on rejections: tampered body, wrong secret, changed id, stale', () => {
    const body = '{"type":"email.delivered","data":{"to":["a@example.com"]}}';
    const headers = librarySigned(SECRET, 'msg_1', Number(NOW_SECONDS), body);
    const other = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
    const cases: Array<[string, Record<string, string>, string]> = [
      [SECRET, headers, body.replace('a@', 'b@')],
      [other, headers, body],
      [SECRET, { ...headers, 'webhook-id': 'msg_2' }, body],
      [SECRET, librarySigned(SECRET, 'msg_1', Number(NOW_SECONDS) - 301, body), body],
    ];
    for (const [secret, h, payload] of cases) {
      expect(theirs(secret, payload, h)).toBe(false);
      expect(ours(secret, payload, h)).toBe(false);
    }
  });

  it('the library accepts a timestamp of `1674087231abc` (parseInt); we reject it', () => {
    // The library parses the header with parseInt and signs the parsed number, so appending garbage
    // to a valid header still verifies there. Ours demands digits only.
    const seconds = 1674087231;
    vi.setSystemTime(seconds * 1000 + 10_000);
    const body = '{"type":"email.delivered","data":{"to":["a@example.com"]}}';
    const headers = { ...librarySigned(SECRET, 'msg_1', seconds, body), 'webhook-timestamp': `${seconds}abc` };
    expect(theirs(SECRET, body, headers)).toBe(true);
    expect(() =>
      verifyStandardWebhook(
        request(body, headers),
        decodeStandardSecrets([SECRET]),
        seconds * 1000 + 10_000,
        SYMMETRIC_FIVE_MINUTES,
      ),
    ).toThrow(AuthenticationError);
  });
});
