/** An in-memory NonceStore with the documented semantics, for providers that claim single-use tokens. */
import type { NonceStore } from '../../../lambdas/core/provider.js';
import type { Clock } from '../../../lambdas/core/time.js';

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
