/** Every provider's demo signer, for `npm run send` and the local runtime's generated demo credentials. */
import { genericDemo } from './generic.js';
import { mailgunDemo } from './mailgun.js';
import { postmarkDemo } from './postmark.js';
import { sendgridDemo } from './sendgrid.js';
import { sesDemo } from './ses.js';
import { standardWebhooksDemo } from './standard-webhooks.js';
import type { DemoSigner } from './types.js';

export const DEMO_SIGNERS: readonly DemoSigner[] = [
  sesDemo,
  sendgridDemo,
  mailgunDemo,
  postmarkDemo,
  standardWebhooksDemo,
  genericDemo,
];

export function findDemoSigner(provider: string): DemoSigner | undefined {
  return DEMO_SIGNERS.find((s) => s.provider === provider);
}
