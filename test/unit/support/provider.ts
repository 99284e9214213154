/**
 * Builders every provider's tests share: a pinned clock, deps whose unused ports fail loudly, raw
 * requests, and a provider built from its definition. What belongs to one provider (its secrets, its
 * vectors, its request shape) stays in that provider's own support.ts.
 */
import type { NonceStore, ProviderDefinition, ProviderDeps, WebhookProvider } from '../../../lambdas/core/provider.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import type { Clock } from '../../../lambdas/core/time.js';

export const NOW_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
export const NOW_SECONDS = String(NOW_MS / 1000);

export type Headers = Record<string, string | undefined>;

export interface DepsOptions {
  /** The pinned time (default NOW_MS). */
  nowMs?: number;
  /** A clock the test moves instead of a pinned time. */
  now?: Clock;
  settings?: Record<string, string | undefined>;
  nonces?: NonceStore;
}

/**
 * Deps for one provider. Nonces (unless given) and certificates are refused: a provider calling a port
 * it has no use for is a bug the test must see, not a silent success.
 */
export function providerDeps(credentials: readonly string[], options: DepsOptions = {}): ProviderDeps {
  const nowMs = options.nowMs ?? NOW_MS;
  return {
    credentials,
    now: options.now ?? (() => nowMs),
    nonces: options.nonces ?? { claim: () => Promise.reject(new Error('this provider must not claim nonces')) },
    certificates: { get: () => Promise.reject(new Error('this provider must not fetch certificates')) },
    settings: options.settings ?? {},
  };
}

export function createProvider(
  definition: ProviderDefinition,
  credentials: readonly string[],
  options: DepsOptions = {},
): WebhookProvider {
  return definition.create(providerDeps(credentials, options));
}

/** A raw request: a string or bytes as given, anything else as its JSON text. */
export function request(body: string | Buffer | object, headers: Headers = {}, sourceIp?: string): WebhookRequest {
  const bytes = Buffer.isBuffer(body)
    ? body
    : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return sourceIp === undefined ? { body: bytes, headers } : { body: bytes, headers, sourceIp };
}
