/** Mailgun tokens are single-use: claimed after signature and window pass, keyed by a fingerprint of the body. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ReplayError, TransientError } from '../../../lambdas/core/errors.js';
import { sampleMailgunEventData, signMailgun } from '../../../lib/demo/mailgun.js';
import { NOW_MS } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import { KEY, mailgun, request } from './support.js';

function signedBody(recipient = 'bounced@example.com', signature = signMailgun(KEY, NOW_MS)): string {
  return JSON.stringify({ signature, 'event-data': sampleMailgunEventData('hard_bounce', recipient, NOW_MS) });
}

describe('Mailgun token claims', () => {
  it('claims the token once verified, with the body fingerprint and an expiry past the window', async () => {
    const h = mailgun();
    const text = signedBody();
    await h.provider.receive(request(text));
    const { token, timestamp } = JSON.parse(text).signature;
    expect(h.nonces.claims).toEqual([
      {
        namespace: 'mailgun',
        token,
        fingerprint: createHash('sha256').update(text).digest('hex'),
        // signed time + 9 h window + 5 min margin
        expiresAtMs: Number(timestamp) * 1000 + 9 * 3_600_000 + 300_000,
      },
    ]);
  });

  it('lets the same token with the same body through again (a provider retry; the inbox dedups)', async () => {
    const h = mailgun();
    const text = signedBody();
    const first = await h.provider.receive(request(text));
    h.clock.now += 60_000;
    const second = await h.provider.receive(request(text));
    expect(second).toEqual(first);
    expect(h.nonces.claims).toHaveLength(2);
  });

  it('rejects the same token replayed with altered event-data with 409', async () => {
    const h = mailgun();
    const signature = signMailgun(KEY, NOW_MS);
    await h.provider.receive(request(signedBody('bounced@example.com', signature)));
    const forged = h.provider.receive(request(signedBody('victim@example.com', signature)));
    await expect(forged).rejects.toThrow(ReplayError);
    await expect(forged).rejects.toMatchObject({ status: 409, code: 'replayed' });
  });

  it('rejects a replay that only re-formats the body (the fingerprint is of the exact bytes)', async () => {
    const h = mailgun();
    const text = signedBody();
    await h.provider.receive(request(text));
    const reformatted = JSON.stringify(JSON.parse(text), null, 2);
    await expect(h.provider.receive(request(reformatted))).rejects.toThrow(ReplayError);
  });

  it('does not claim a token for a body whose event-data it then refuses', async () => {
    const h = mailgun();
    const text = JSON.stringify({ signature: signMailgun(KEY, NOW_MS), 'event-data': { event: 'delivered' } });
    await expect(h.provider.receive(request(text))).rejects.toMatchObject({ status: 400 });
    expect(h.nonces.claims).toHaveLength(0);
  });

  it('different tokens with different bodies are independent', async () => {
    const h = mailgun();
    await h.provider.receive(request(signedBody('a@example.com')));
    await expect(h.provider.receive(request(signedBody('b@example.com')))).resolves.toSatisfy(carriesEvents('mailgun'));
  });

  it('maps a failing nonce store to 503 so Mailgun retries, never to a 4xx', async () => {
    const down = { claim: () => Promise.reject(new Error('DynamoDB unavailable')) };
    const h = mailgun({ nonces: down });
    const receipt = h.provider.receive(request(signedBody()));
    await expect(receipt).rejects.toThrow(TransientError);
    await expect(receipt).rejects.toMatchObject({ status: 503 });
  });

  it('passes a WebhookError from the nonce store through unchanged', async () => {
    const h = mailgun({ nonces: { claim: () => Promise.reject(new TransientError('throttled')) } });
    await expect(h.provider.receive(request(signedBody()))).rejects.toThrow('throttled');
  });

  it('a forged body under a captured token is still refused at the very end of the 9 h window', async () => {
    const h = mailgun();
    const signature = signMailgun(KEY, NOW_MS);
    const genuine = signedBody('bounced@example.com', signature);
    const first = await h.provider.receive(request(genuine));
    h.clock.now = NOW_MS + 9 * 3_600_000;
    await expect(h.provider.receive(request(signedBody('victim@example.com', signature)))).rejects.toThrow(ReplayError);
    // ...while the genuine retry of the same body, as late, still gets through to the inbox's dedup.
    expect(await h.provider.receive(request(genuine))).toEqual(first);
  });
});
