/**
 * Signs sample Mailgun webhook requests the way Mailgun does: the `signature` object in the body,
 * HMAC-SHA256(key, timestamp + token) in lowercase hex, a 50-character token, the timestamp as a
 * JSON string. Written against the spec rather than our verifier.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { assertDemoScope, type DemoSigner, sharedSecret, unixSeconds } from './types.js';

export function mailgunSignature(signingKey: string, timestamp: string, token: string): string {
  return createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest('hex');
}

/** A fresh `signature` object, as Mailgun sends it. */
export function signMailgun(
  signingKey: string,
  nowMs: number,
  token = randomBytes(25).toString('hex'),
): { timestamp: string; token: string; signature: string } {
  const timestamp = unixSeconds(nowMs);
  return { timestamp, token, signature: mailgunSignature(signingKey, timestamp, token) };
}

/** One realistic `event-data` object of each actionable kind. */
export function sampleMailgunEventData(kind: ActionableKind, email: string, nowMs: number): Record<string, unknown> {
  // Mailgun's webhook does not say which unsubscribe link was used: no topics, no opt-in.
  assertDemoScope(mailgunDemo, kind);
  const domain = email.slice(email.lastIndexOf('@') + 1);
  const common = {
    id: randomBytes(16).toString('base64url').slice(0, 22),
    timestamp: Number((nowMs / 1000 - 2).toFixed(6)),
    recipient: email,
    'recipient-domain': domain,
    message: {
      headers: { 'message-id': `${randomBytes(8).toString('hex')}.1@mg.example.org`, subject: 'Ratchet demo' },
    },
    tags: ['ratchet-demo'],
    'user-variables': {},
    envelope: { sender: 'demo@mg.example.org', transport: 'smtp', targets: email },
    flags: { 'is-test-mode': false, 'is-authenticated': true, 'is-routed': false },
  };
  switch (kind) {
    case 'delivered':
      return {
        ...common,
        event: 'delivered',
        'log-level': 'info',
        'delivery-status': {
          code: 250,
          message: 'OK',
          description: '',
          'attempt-no': 1,
          tls: true,
          'mx-host': `mx.${domain}`,
        },
      };
    case 'hard_bounce':
      return {
        ...common,
        event: 'failed',
        'log-level': 'error',
        severity: 'permanent',
        reason: 'bounce',
        'delivery-status': {
          code: 550,
          'enhanced-code': '5.1.1',
          message: '550 5.1.1 The email account that you tried to reach does not exist.',
          description: '',
          'attempt-no': 1,
          'mx-host': `mx.${domain}`,
        },
      };
    case 'soft_bounce':
      return {
        ...common,
        event: 'failed',
        'log-level': 'warn',
        severity: 'temporary',
        reason: 'generic',
        'delivery-status': {
          code: 452,
          'enhanced-code': '4.2.2',
          message: '452 4.2.2 The email account that you tried to reach is over quota.',
          description: '',
          'attempt-no': 1,
          'retry-seconds': 600,
          'mx-host': `mx.${domain}`,
        },
      };
    case 'complaint':
      return { ...common, event: 'complained', 'log-level': 'warn' };
    case 'unsubscribe':
    case 'subscribe': // (unreachable: assertDemoScope refuses it)
      return { ...common, event: 'unsubscribed', 'log-level': 'info' };
  }
}

export const mailgunDemo: DemoSigner = {
  provider: 'mailgun',
  // Mailgun's HTTP webhook signing keys are opaque strings; used as UTF-8 bytes, never decoded.
  createCredentials: () => sharedSecret(randomBytes(24).toString('hex')),
  sign(kind, email, credentials, nowMs, options) {
    assertDemoScope(mailgunDemo, kind, options);
    const body = JSON.stringify({
      signature: signMailgun(credentials.signingSecret, nowMs),
      'event-data': sampleMailgunEventData(kind, email, nowMs),
    });
    return { headers: { 'content-type': 'application/json' }, body };
  },
};
