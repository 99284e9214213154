/**
 * `npm run send -- <provider> <kind> <email>`: signs a sample event the way that provider would and
 * posts it to the local stack at http://localhost:$PORT. Uses the demo credentials `npm start` generated,
 * or, for shared-secret providers, the first secret in the provider's variable when it is set.
 */
import { resolve } from 'node:path';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { findProvider } from '../../lambdas/core/providers/index.js';
import { DEMO_SIGNERS, findDemoSigner } from '../demo/index.js';
import { ensureDemoCredentials } from '../local/demo-credentials.js';

const KIND_ALIASES: Record<string, ActionableKind> = {
  bounce: 'hard_bounce',
  hard_bounce: 'hard_bounce',
  'hard-bounce': 'hard_bounce',
  soft_bounce: 'soft_bounce',
  'soft-bounce': 'soft_bounce',
  complaint: 'complaint',
  unsubscribe: 'unsubscribe',
  delivered: 'delivered',
  delivery: 'delivered',
};

/** Providers whose verifier and sender share one secret, so a configured variable can sign too. */
const SHARED_SECRET_PROVIDERS = new Set(['mailgun', 'postmark', 'standard', 'generic']);

export const SEND_USAGE = `usage: npm run send -- <provider> <kind> <email>
  provider: ${DEMO_SIGNERS.map((s) => s.provider).join(' | ')}
  kind:     bounce (hard) | soft-bounce | complaint | unsubscribe | delivered`;

export async function sendCommand(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [providerName, kindName, email] = argv;
  const signer = providerName ? findDemoSigner(providerName) : undefined;
  const kind = kindName ? KIND_ALIASES[kindName] : undefined;
  if (!signer || !kind || !email) {
    console.error(SEND_USAGE);
    return 2;
  }
  const demo = ensureDemoCredentials(resolve(env.RATCHET_DATA_DIR ?? '.data'))[signer.provider]!;
  const definition = findProvider(signer.provider)!;
  const configured = env[definition.credentialsVariable]?.split(',')[0]?.trim();
  const credentials =
    configured && SHARED_SECRET_PROVIDERS.has(signer.provider)
      ? { ...demo, credential: configured, signingSecret: configured }
      : demo;
  const request = signer.sign(kind, email, credentials, Date.now());
  const url = `http://localhost:${env.PORT ?? 3000}/webhooks/${signer.provider}`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  } catch (error) {
    console.error(`could not reach ${url}: is \`npm start\` running? (${String(error)})`);
    return 1;
  }
  console.log(`POST ${url} → ${response.status} ${await response.text()}`);
  return response.ok ? 0 : 1;
}
