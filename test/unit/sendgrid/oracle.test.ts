/** SendGrid's own library as an oracle: it and our node:crypto verifier must agree. */
import { EventWebhook } from '@sendgrid/eventwebhook';
import { describe, expect, it } from 'vitest';
import { parseSendgridPublicKey } from '../../../lambdas/core/providers/sendgrid/index.js';
import { verifySendgridSignature } from '../../../lambdas/core/providers/sendgrid/verify.js';
import { sampleSendgridEvent, sendgridBatchBody, sendgridDemo, signSendgridBody } from '../../../lib/demo/sendgrid.js';
import { NOW_MS, NOW_SECONDS, request } from '../support/provider.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, VECTOR_A, VECTOR_B, VECTOR_C } from './support.js';

function theirs(publicKey: string, payload: string, signature: string, timestamp: string): boolean {
  const webhook = new EventWebhook();
  try {
    return webhook.verifySignature(webhook.convertPublicKeyToECDSA(publicKey), payload, signature, timestamp);
  } catch {
    return false;
  }
}

function ours(publicKey: string, payload: string, signature: string, timestamp: string): boolean {
  try {
    verifySendgridSignature(request(payload, { [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: timestamp }), [
      parseSendgridPublicKey(publicKey),
    ]);
    return true;
  } catch {
    return false;
  }
}

describe('@sendgrid/eventwebhook oracle', () => {
  it('agrees on a generated P-256 key: valid, tampered body, tampered timestamp', () => {
    const credentials = sendgridDemo.createCredentials();
    const body = sendgridBatchBody([sampleSendgridEvent('hard_bounce', 'a@example.com', NOW_MS)]);
    const headers = signSendgridBody(body, NOW_SECONDS, credentials.signingSecret);
    const signature = headers[SIGNATURE_HEADER]!;

    expect(theirs(credentials.credential, body, signature, NOW_SECONDS)).toBe(true);
    expect(ours(credentials.credential, body, signature, NOW_SECONDS)).toBe(true);

    const tampered = body.replace('a@example.com', 'b@example.com');
    expect(theirs(credentials.credential, tampered, signature, NOW_SECONDS)).toBe(false);
    expect(ours(credentials.credential, tampered, signature, NOW_SECONDS)).toBe(false);

    const later = String(Number(NOW_SECONDS) + 1);
    expect(theirs(credentials.credential, body, signature, later)).toBe(false);
    expect(ours(credentials.credential, body, signature, later)).toBe(false);
  });

  it('agrees on the official vectors', () => {
    for (const v of [VECTOR_A, VECTOR_B, VECTOR_C]) {
      expect(theirs(v.publicKey, v.payload, v.signature, v.timestamp)).toBe(true);
      expect(ours(v.publicKey, v.payload, v.signature, v.timestamp)).toBe(true);
    }
  });

  it('agrees across 20 generated keys and bodies', () => {
    for (let i = 0; i < 20; i++) {
      const credentials = sendgridDemo.createCredentials();
      const signed = sendgridDemo.sign('delivered', `user${i}@example.com`, credentials, NOW_MS + i * 1000);
      const signature = signed.headers[SIGNATURE_HEADER]!;
      const timestamp = signed.headers[TIMESTAMP_HEADER]!;
      expect(ours(credentials.credential, signed.body, signature, timestamp)).toBe(true);
      expect(theirs(credentials.credential, signed.body, signature, timestamp)).toBe(true);
    }
  });
});
