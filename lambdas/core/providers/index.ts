/**
 * The provider registry. Adding a provider means adding a module here: the edge handler, the local
 * runtime, the CDK routes and the secret wiring all iterate this list, so none of them change.
 */
import type { ProviderDefinition } from '../provider.js';
import { genericProvider } from './generic/index.js';
import { GENERIC } from './generic/map.js';
import { mailgunProvider } from './mailgun/index.js';
import { MAILGUN } from './mailgun/map.js';
import { postmarkProvider } from './postmark/index.js';
import { POSTMARK } from './postmark/map.js';
import { sendgridProvider } from './sendgrid/index.js';
import { SENDGRID } from './sendgrid/map.js';
import { SES_PROVIDER_NAME, sesProvider } from './ses/index.js';
import { standardWebhooksProvider } from './standard-webhooks/index.js';
import { STANDARD } from './standard-webhooks/map.js';

/**
 * Keyed by each provider's own name constant, so that `ProviderName` is exactly the registered names
 * and whatever must exist once per provider (the demo signers) can be typed on it.
 */
const REGISTRY = {
  [SES_PROVIDER_NAME]: sesProvider,
  [SENDGRID]: sendgridProvider,
  [MAILGUN]: mailgunProvider,
  [POSTMARK]: postmarkProvider,
  [STANDARD]: standardWebhooksProvider,
  [GENERIC]: genericProvider,
} as const satisfies Readonly<Record<string, ProviderDefinition>>;

export type ProviderName = keyof typeof REGISTRY;

export const PROVIDER_NAMES = Object.keys(REGISTRY) as readonly ProviderName[];

export const PROVIDERS: readonly ProviderDefinition[] = Object.values(REGISTRY);

export function findProvider(name: string): ProviderDefinition | undefined {
  return PROVIDERS.find((p) => p.name === name);
}
