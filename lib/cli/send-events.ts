/**
 * Which events `send` posted: the same provider module the edge runs reads the signed request back,
 * with the demo credentials it was signed with, so the event ids (and the inbox keys `ratchet inbox
 * get` takes) are the ones the edge computes, not a guess at each provider's id scheme.
 */
import { createPublicKey } from 'node:crypto';
import { inboxKey } from '../../lambdas/adapters/dynamodb-inbox.js';
import { EnvSecretSource } from '../../lambdas/adapters/secrets.js';
import { keyedByContent } from '../../lambdas/core/pipeline/content-key.js';
import type { ProviderDefinition } from '../../lambdas/core/provider.js';
import type { DemoCredentials, SignedDemoRequest } from '../demo/types.js';

export interface PostedEvent {
  eventId: string;
  inboxKey: string;
  kind: string;
}

export async function postedEvents(
  definition: ProviderDefinition,
  request: SignedDemoRequest,
  credentials: DemoCredentials,
  settings: Readonly<Record<string, string | undefined>>,
): Promise<PostedEvent[]> {
  const list = await new EnvSecretSource({
    ...settings,
    [definition.credentialsVariable]: credentials.credential,
  }).credentials(definition);
  const pinned = credentials.pinnedCertificate;
  const provider = definition.create({
    credentials: list,
    now: Date.now,
    // Reading back our own request: no nonce is spent, and the certificate is the demo's own.
    nonces: { claim: async () => true },
    certificates: {
      get: async () => (pinned ? createPublicKey(pinned.pem) : Promise.reject(new Error('no pinned certificate'))),
    },
    settings,
  });
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const receipt = await provider.receive({ body: Buffer.from(request.body), headers });
  // Keyed as the edge keys them: by content, for providers whose own ids change under retries.
  const events = definition.keysByContent ? receipt.events.map(keyedByContent) : receipt.events;
  return events.map((event) => ({
    eventId: event.eventId,
    inboxKey: inboxKey(definition.name, event.eventId),
    kind: event.kind,
  }));
}
