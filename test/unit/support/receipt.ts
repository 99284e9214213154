/**
 * What "the provider accepted it" means in a test: a Receipt that carries the request's events (each
 * with its provider and a stable event id) or an SNS control message. A regression that authenticates
 * the request but drops its events fails this, where a bare "did not throw" check would pass.
 */
import type { Receipt } from '../../../lambdas/core/provider.js';

export function carriesEvents(provider: string): (receipt: Receipt) => boolean {
  return (receipt) =>
    receipt.control !== undefined ||
    (receipt.events.length > 0 &&
      receipt.events.every((e) => e.provider === provider && e.eventId !== '' && typeof e.raw === 'string'));
}
