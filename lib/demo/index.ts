/** Every provider's demo signer, for `npm run send` and the local runtime's generated demo credentials. */
import { PROVIDER_NAMES, type ProviderName } from '../../lambdas/core/providers/index.js';
import { genericDemo } from './generic.js';
import { mailgunDemo } from './mailgun.js';
import { postmarkDemo } from './postmark.js';
import { sendgridDemo } from './sendgrid.js';
import { sesDemo } from './ses.js';
import { standardWebhooksDemo } from './standard-webhooks.js';
import type { DemoOptions, DemoSigner } from './types.js';

/** One signer per registered provider: a provider without one, or a signer without a provider, does not compile. */
export const DEMO_SIGNER_BY_PROVIDER: Readonly<Record<ProviderName, DemoSigner>> = {
  ses: sesDemo,
  sendgrid: sendgridDemo,
  mailgun: mailgunDemo,
  postmark: postmarkDemo,
  standard: standardWebhooksDemo,
  generic: genericDemo,
};

/** In the registry's order: how `send` lists them and the order demo credentials are created in. */
export const DEMO_SIGNERS: readonly DemoSigner[] = PROVIDER_NAMES.map((name) => DEMO_SIGNER_BY_PROVIDER[name]);

export function findDemoSigner(provider: string): DemoSigner | undefined {
  return DEMO_SIGNERS.find((s) => s.provider === provider);
}

/**
 * `send`'s topic vocabulary, for lib/cli/send.ts: `group-unsubscribe` / `group-resubscribe` (SendGrid,
 * `--group <asm_group_id>`), and `unsubscribe` / `subscribe` with `--topic` where the provider has
 * topics (ses `topic` or `list:topic`, postmark the stream, standard the Resend topic id, generic the
 * name). Returns the kind and DemoOptions to pass to `signer.sign`, or throws an Error with a usage hint.
 */
export const TOPIC_KIND_NAMES: Readonly<Record<string, 'unsubscribe' | 'subscribe'>> = {
  'group-unsubscribe': 'unsubscribe',
  'group-resubscribe': 'subscribe',
  subscribe: 'subscribe',
  resubscribe: 'subscribe',
};

export function resolveDemoTopic(
  signer: DemoSigner,
  kindName: string,
  flags: { group?: string; topic?: string },
): { kind?: 'unsubscribe' | 'subscribe'; options: DemoOptions } {
  if (flags.group !== undefined && signer.topicOption !== 'group')
    throw new Error(`--group is for sendgrid; ${signer.provider} takes ${signer.topicOption ? '--topic' : 'no topic'}`);
  if (flags.topic !== undefined && signer.topicOption !== 'topic')
    throw new Error(`${signer.provider} takes ${signer.topicOption ? '--group' : 'no topic'}`);
  const topic = flags.group ?? flags.topic;
  const named = Object.hasOwn(TOPIC_KIND_NAMES, kindName) ? TOPIC_KIND_NAMES[kindName] : undefined;
  if (kindName.startsWith('group-') && signer.topicOption !== 'group')
    throw new Error(`${kindName} is a SendGrid event`);
  if (named !== undefined && topic === undefined)
    throw new Error(`${kindName} needs --${signer.topicOption ?? 'topic'}`);
  return { kind: named, options: topic === undefined ? {} : { topic } };
}
