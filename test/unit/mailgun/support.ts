/** Mailgun's own fixtures: demo signing credentials, a provider on a movable clock with a nonce store, JSON requests. */
import type { NonceStore, WebhookProvider } from '../../../lambdas/core/provider.js';
import { mailgunProvider } from '../../../lambdas/core/providers/mailgun/index.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { mailgunDemo } from '../../../lib/demo/mailgun.js';
import { MemoryNonceStore } from '../support/nonces.js';
import { createProvider, NOW_MS, request as rawRequest } from '../support/provider.js';

export const CREDENTIALS = mailgunDemo.createCredentials();
export const KEY = CREDENTIALS.signingSecret;

export interface Harness {
  provider: WebhookProvider;
  nonces: MemoryNonceStore;
  clock: { now: number };
}

export function mailgun(
  options: {
    credentials?: readonly string[];
    nowMs?: number;
    settings?: Record<string, string | undefined>;
    nonces?: NonceStore;
  } = {},
): Harness {
  const clock = { now: options.nowMs ?? NOW_MS };
  const memory = new MemoryNonceStore(() => clock.now);
  const provider = createProvider(mailgunProvider, options.credentials ?? [KEY], {
    now: () => clock.now,
    nonces: options.nonces ?? memory,
    settings: options.settings ?? {},
  });
  return { provider, nonces: memory, clock };
}

/** Mailgun posts JSON. */
export function request(body: string | Buffer | object): WebhookRequest {
  return rawRequest(body, { 'content-type': 'application/json' });
}
