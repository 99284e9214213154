/**
 * Standard Webhooks v1 (standardwebhooks.com), which also covers Svix-branded senders such as Resend.
 *
 * Signature: HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${raw body}`, keyed with the
 * base64-decoded part of a `whsec_…` secret; `webhook-signature` is a space-separated list of
 * `v1,<base64>` entries. We accept the request when any v1 entry matches any configured secret,
 * skip versions we do not implement (`v1a` ed25519, anything newer), and allow 5 minutes of age and
 * skew (`STANDARD_WEBHOOK_TOLERANCE_SECONDS`), like every reference library.
 *
 * Where we are stricter than the reference JS library (standardwebhooks@1.1.1):
 * - the timestamp must be digits only (its `parseInt` accepts `1674087231abc`);
 * - secrets must be `whsec_` + canonical padded base64, checked at startup rather than on first use;
 * - ids must be printable ASCII without `.` (the spec asks senders for this; it keeps the signed
 *   string's `.`-delimited fields unambiguous);
 * - `webhook-*` and `svix-*` copies of a header that disagree are rejected rather than one winning.
 */
import { parseJsonObject } from '../../json.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, decodeBase64Strict } from '../../request.js';
import { toleranceSetting } from '../tolerance.js';
import { STANDARD, standardWebhookEvents } from './map.js';
import { verifyStandardWebhook } from './verify.js';

export const STANDARD_CREDENTIALS_VARIABLE = 'STANDARD_WEBHOOK_SECRETS';
export const STANDARD_TOLERANCE_VARIABLE = 'STANDARD_WEBHOOK_TOLERANCE_SECONDS';
/**
 * ±5 minutes, like every reference library: the spec has the sender re-sign each retry with the
 * attempt's own timestamp, so a retry hours later is still fresh and a wider window buys nothing.
 */
export const STANDARD_DEFAULT_WINDOW_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** Decodes every `whsec_…` secret once; throws (without echoing it) on anything else. */
export function decodeStandardSecrets(credentials: readonly string[]): Buffer[] {
  return credentials.map((secret, index) => {
    const invalid = new Error(`${STANDARD_CREDENTIALS_VARIABLE} entry ${index + 1} is not whsec_ + base64`);
    if (!secret.startsWith(SECRET_PREFIX)) throw invalid;
    try {
      return decodeBase64Strict(secret.slice(SECRET_PREFIX.length), 'secret');
    } catch {
      throw invalid;
    }
  });
}

const tolerance = toleranceSetting(STANDARD_TOLERANCE_VARIABLE, STANDARD_DEFAULT_WINDOW_SECONDS);

/** The window both `create()` and the inbox retention check use. */
export const standardWindow = tolerance.window;

export const standardWebhooksProvider: ProviderDefinition = {
  name: STANDARD,
  credentialsVariable: STANDARD_CREDENTIALS_VARIABLE,
  secretArnVariable: 'STANDARD_WEBHOOK_SECRET_ARN',
  settings: [tolerance.setting],
  signatureWindow: tolerance.signatureWindow,
  create(deps): WebhookProvider {
    const keys = decodeStandardSecrets(deps.credentials);
    const window = standardWindow(deps.settings);
    return {
      name: STANDARD,
      async receive(request): Promise<Receipt> {
        const { id, signedAtMs } = verifyStandardWebhook(request, keys, deps.now(), window);
        const raw = bodyText(request.body);
        return { events: standardWebhookEvents(parseJsonObject(raw), raw, id, signedAtMs) };
      },
    };
  },
};
