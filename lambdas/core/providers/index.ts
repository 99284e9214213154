/**
 * The provider registry. Adding a provider means adding a module here: the edge handler, the local
 * runtime, the CDK routes and the secret wiring all iterate this list, so none of them change.
 */
import type { ProviderDefinition } from '../provider.js';
import { genericProvider } from './generic.js';
import { mailgunProvider } from './mailgun.js';
import { postmarkProvider } from './postmark.js';
import { sesProvider } from './ses.js';
import { sendgridProvider } from './sendgrid.js';
import { standardWebhooksProvider } from './standard-webhooks.js';

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
