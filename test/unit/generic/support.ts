/** The generic contract's own fixtures: the worked example from the contract doc (and its clock), signed requests. */
import type { WebhookProvider } from '../../../lambdas/core/provider.js';
import { genericProvider } from '../../../lambdas/core/providers/generic/index.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { signGenericBody } from '../../../lib/demo/generic.js';
import { createProvider, request } from '../support/provider.js';

/** The worked example in docs/generic-webhook-contract.md, byte for byte. */
export const EXAMPLE = {
  secret: 'example-secret-do-not-use-0123456789',
  id: 'evt_01HZX3K6Q8V4N2M7P5R9T1W3Y6',
  timestamp: '1700000000',
  body: '{"id":"evt_01HZX3K6Q8V4N2M7P5R9T1W3Y6","type":"hard_bounce","recipient":"jane@example.com","occurredAt":"2023-11-14T22:13:15Z"}',
  signature: 'v1=f71fcf48cc783368f1583d3ceea741f85d2746fd8ddf3c2c35f70356b4d41629',
};

export const NOW_MS = Number(EXAMPLE.timestamp) * 1000 + 5_000;
export const NOW_SECONDS = String(Math.floor(NOW_MS / 1000));
export const SECRET = EXAMPLE.secret;
export const OTHER_SECRET = 'another-secret-that-is-long-enough-32b';

/** The generic provider at the example's time (its own clock: the example is signed in 2023). */
export function generic(
  credentials: readonly string[] = [SECRET],
  nowMs = NOW_MS,
  settings: Record<string, string | undefined> = {},
): WebhookProvider {
  return createProvider(genericProvider, credentials, { nowMs, settings });
}

export function exampleHeaders(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    'x-event-id': EXAMPLE.id,
    'x-webhook-timestamp': EXAMPLE.timestamp,
    'x-webhook-signature': EXAMPLE.signature,
    ...overrides,
  };
}

/** A body for `fields`, signed with `secret` at `timestamp`; the header id defaults to the body id. */
export function signedRequest(
  fields: Record<string, unknown>,
  {
    id = String(fields['id']),
    timestamp = NOW_SECONDS,
    secret = SECRET,
  }: { id?: string; timestamp?: string; secret?: string } = {},
): WebhookRequest {
  const body = JSON.stringify(fields);
  return request(body, signGenericBody(secret, id, timestamp, body));
}

export function event(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'evt_1', type: 'hard_bounce', recipient: 'jane@example.com', ...overrides };
}
