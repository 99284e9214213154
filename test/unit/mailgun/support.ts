/** Shared fixtures for the Mailgun tests: an in-memory NonceStore with the documented semantics, deps, requests. */
import type { NonceStore, ProviderDeps, WebhookProvider } from '../../../lambdas/core/provider.js';
import { mailgunProvider } from '../../../lambdas/core/providers/mailgun/index.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import type { Clock } from '../../../lambdas/core/time.js';
import { mailgunDemo } from '../../../lib/demo/mailgun.js';

export const NOW_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
export const NOW_SECONDS = String(NOW_MS / 1000);
export const CREDENTIALS = mailgunDemo.createCredentials();
export const KEY = CREDENTIALS.signingSecret;

export interface Claim {
  namespace: string;
  token: string;
  fingerprint: string;
  expiresAtMs: number;
}

/**
 * The NonceStore contract in memory: a first claim wins; a repeat with the same fingerprint is a
 * provider retry and passes; a different fingerprint before expiry is a replay. Never for production
 * (process memory is neither durable nor shared between Lambdas).
 */
export class MemoryNonceStore implements NonceStore {
  readonly claims: Claim[] = [];
  private readonly held = new Map<string, { fingerprint: string; expiresAtMs: number }>();
  constructor(private readonly now: Clock) {}

  async claim(namespace: string, token: string, fingerprint: string, expiresAtMs: number): Promise<boolean> {
    this.claims.push({ namespace, token, fingerprint, expiresAtMs });
    const key = `${namespace}#${token}`;
    const existing = this.held.get(key);
    if (existing && existing.expiresAtMs >= this.now()) return existing.fingerprint === fingerprint;
    this.held.set(key, { fingerprint, expiresAtMs });
    return true;
  }
}

export interface Harness {
  provider: WebhookProvider;
  nonces: MemoryNonceStore;
  clock: { now: number };
}

export function mailgun(
  options: { credentials?: readonly string[]; nowMs?: number; settings?: Record<string, string | undefined>; nonces?: NonceStore } = {},
): Harness {
  const clock = { now: options.nowMs ?? NOW_MS };
  const memory = new MemoryNonceStore(() => clock.now);
  const deps: ProviderDeps = {
    credentials: options.credentials ?? [KEY],
    now: () => clock.now,
    nonces: options.nonces ?? memory,
    certificates: { get: () => Promise.reject(new Error('Mailgun must not fetch certificates')) },
    settings: options.settings ?? {},
  };
  return { provider: mailgunProvider.create(deps), nonces: memory, clock };
}

export function request(body: string | Buffer | object): WebhookRequest {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return { body: bytes, headers: { 'content-type': 'application/json' } };
}
