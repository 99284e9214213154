/** The real `unsubscribe` provider under a fixed clock, as the endpoint and provider tests use it. */
import { UNSUBSCRIBE_PROVIDER } from '../../../lambdas/core/unsubscribe/provider.js';

export function unsubscribeProvider(secret: string, now: number) {
  return UNSUBSCRIBE_PROVIDER.create({
    credentials: [secret],
    now: () => now,
    nonces: { claim: async () => true },
    // The unsubscribe provider verifies its own tokens and never fetches a certificate.
    certificates: {
      get: async () => {
        throw new Error('unused');
      },
    },
    settings: {},
  });
}
