/**
 * The provider `unsubscribe`: turns an accepted one-click POST into a NormalizedEvent, so that it goes
 * through the very same admission (inbox + queue) and ratchet as a provider's webhook.
 *
 * It is not reachable at `/webhooks/unsubscribe` (it is not in PROVIDERS): the unsubscribe endpoint
 * feeds it a request whose body is the canonical `{"token","action"}` it has already parsed, and the
 * token is verified again here, so nothing unverified can become an event.
 */
import { createHash } from 'node:crypto';
import { AuthenticationError, MalformedRequestError } from '../errors.js';
import type { NormalizedEvent } from '../event.js';
import type { ProviderDefinition, WebhookProvider } from '../provider.js';
import { bodyText } from '../request.js';
import type { UnsubscribeAction } from './form.js';
import { deriveTokenKeys, GLOBAL_TOPIC, maxAgeDaysFromSettings, verifyToken } from './token.js';

export const UNSUBSCRIBE_PROVIDER_NAME = 'unsubscribe';

/** What the endpoint hands the edge: the exact bytes of this become the inbox row's `raw`. */
export function unsubscribeRequestBody(token: string, action: UnsubscribeAction): Buffer {
  return Buffer.from(JSON.stringify({ token, action }), 'utf8');
}

/** Dedup key: repeated clicks and repeated mailbox-provider POSTs of one link and action are one event. */
export function unsubscribeEventId(token: string, action: UnsubscribeAction): string {
  return createHash('sha256').update(`${action}\n${token}`, 'utf8').digest('hex');
}

export const UNSUBSCRIBE_PROVIDER: ProviderDefinition = {
  name: UNSUBSCRIBE_PROVIDER_NAME,
  credentialsVariable: 'UNSUBSCRIBE_SECRETS',
  secretArnVariable: 'UNSUBSCRIBE_SECRET_ARN',
  settings: [
    {
      variable: 'UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS',
      describe: 'How long an unsubscribe link works, in days (default 400)',
    },
  ],
  create(deps): WebhookProvider {
    const keys = deriveTokenKeys(deps.credentials);
    const maxAgeDays = maxAgeDaysFromSettings(deps.settings);
    return {
      name: UNSUBSCRIBE_PROVIDER_NAME,
      async receive(request) {
        const raw = bodyText(request.body);
        const { token, action } = parse(raw);
        const receivedAt = deps.now();
        const verified = verifyToken(token, keys, receivedAt, maxAgeDays);
        if (!verified.ok) throw new AuthenticationError(`unsubscribe token ${verified.reason}`);
        const { email, topic } = verified.claims;
        if (action === 'resubscribe' && topic === GLOBAL_TOPIC)
          throw new MalformedRequestError('a global unsubscribe has no resubscribe');
        const event: NormalizedEvent = {
          provider: UNSUBSCRIBE_PROVIDER_NAME,
          eventId: unsubscribeEventId(token, action),
          recipient: email,
          kind: action === 'resubscribe' ? 'subscribe' : 'unsubscribe',
          ...(topic === GLOBAL_TOPIC ? {} : { topic }),
          // The person's click is the event: its time is when we received it.
          occurredAt: receivedAt,
          detail: { providerEventType: action === 'resubscribe' ? 'resubscribe' : 'one_click_unsubscribe' },
          raw,
        };
        return { events: [event] };
      },
    };
  },
};

function parse(raw: string): { token: string; action: UnsubscribeAction } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new MalformedRequestError('unsubscribe request is not JSON');
  }
  const { token, action } = (value ?? {}) as Record<string, unknown>;
  if (typeof token !== 'string' || (action !== 'unsubscribe' && action !== 'resubscribe')) {
    throw new MalformedRequestError('unsubscribe request needs a token and an action');
  }
  return { token, action };
}
