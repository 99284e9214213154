/**
 * The provider registry. Adding a provider means adding a module here: the edge handler, the local
 * runtime, the CDK routes and the secret wiring all iterate this list, so none of them change.
 */
import type { ProviderDefinition } from '../provider.js';
import { genericProvider } from './generic/index.js';
import { mailgunProvider } from './mailgun/index.js';
import { postmarkProvider } from './postmark/index.js';
import { sesProvider } from './ses/index.js';
import { sendgridProvider } from './sendgrid/index.js';
import { standardWebhooksProvider } from './standard-webhooks/index.js';

export const PROVIDERS: readonly ProviderDefinition[] = [
  sesProvider,
  sendgridProvider,
  mailgunProvider,
  postmarkProvider,
  standardWebhooksProvider,
  genericProvider,
];

export function findProvider(name: string): ProviderDefinition | undefined {
  return PROVIDERS.find((p) => p.name === name);
}
