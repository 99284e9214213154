/**
 * Signs sample requests under the generic webhook contract (docs/generic-webhook-contract.md):
 * hex HMAC-SHA256 over `${timestamp}.${id}.${body}` with the secret's UTF-8 bytes, sent as
 * `x-webhook-signature: v1=<hex>`. Written against the contract rather than our verifier.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { ActionableKind } from '../../lambdas/core/event.js';
import {
  assertDemoScope,
  type BodySigner,
  type DemoOptions,
  type DemoSigner,
  sharedSecret,
  unixSeconds,
} from './types.js';

export function genericSignature(secret: string, id: string, timestamp: string, body: string | Buffer): string {
  return `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${id}.`).update(body).digest('hex')}`;
}

/** The three contract headers for an arbitrary body. */
export const signGenericBody: BodySigner = (secret, id, timestamp, body) => ({
  'content-type': 'application/json',
  'x-event-id': id,
  'x-webhook-timestamp': timestamp,
  'x-webhook-signature': genericSignature(secret, id, timestamp, body),
});

export function sampleGenericEvent(
  kind: ActionableKind,
  email: string,
  nowMs: number,
  id = `evt_${randomUUID()}`,
  options: DemoOptions = {},
) {
  assertDemoScope(genericDemo, kind, options);
  const event = { id, type: kind, recipient: email, occurredAt: new Date(nowMs - 2000).toISOString() };
  return options.topic === undefined ? event : { ...event, topic: options.topic };
}

export const genericDemo: DemoSigner = {
  provider: 'generic',
  topicOption: 'topic',
  // 32 random bytes as 64 hex characters: printable, and twice the contract's 32-byte minimum.
  createCredentials: () => sharedSecret(randomBytes(32).toString('hex')),
  sign(kind, email, credentials, nowMs, options) {
    const event = sampleGenericEvent(kind, email, nowMs, undefined, options);
    const body = JSON.stringify(event);
    const timestamp = unixSeconds(nowMs);
    return { headers: signGenericBody(credentials.signingSecret, event.id, timestamp, body), body };
  },
};
