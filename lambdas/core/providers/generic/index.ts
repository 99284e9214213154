/**
 * The generic webhook contract: for any sender that is not one of the named providers.
 * Implementers read docs/generic-webhook-contract.md; this folder is that contract in code, rule by rule
 * (verify.ts rules 1–4, map.ts rules 5–8).
 *
 *   POST /webhooks/generic
 *   x-event-id:          <id>             1..200 printable ASCII characters (0x21–0x7E), the dedup key
 *   x-webhook-timestamp: <unix seconds>   digits only, within ±5 minutes of our clock
 *   x-webhook-signature: v1=<64 hex>      exactly one entry: hex(HMAC-SHA256(secret, signing string))
 *
 *   signing string = `${timestamp}.${id}.${raw body bytes}`
 *   secret         = the shared secret's UTF-8 bytes (at least 32 bytes), used as given
 *
 *   body = { "id": <same as x-event-id>,
 *            "type": "delivered" | "soft_bounce" | "hard_bounce" | "complaint" | "unsubscribe" | "subscribe",
 *            "recipient": <email address>,
 *            "topic"?: <topic name>          on unsubscribe: that topic only (else global); required on subscribe
 *            "occurredAt"?: <ISO-8601 string or Unix seconds/milliseconds> }
 *
 * Why one signature entry and not a list: rotation is handled on our side, which verifies against
 * every configured secret; the sender signs with whichever one secret it currently holds. A single
 * fixed-format entry leaves nothing to interpret.
 */
import { parseJsonObject } from '../../json.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText } from '../../request.js';
import { toleranceSetting } from '../tolerance.js';
import { GENERIC, genericEvent } from './map.js';
import { verifyGenericWebhook } from './verify.js';

export const GENERIC_CREDENTIALS_VARIABLE = 'GENERIC_WEBHOOK_SECRETS';
export const GENERIC_TOLERANCE_VARIABLE = 'GENERIC_WEBHOOK_TOLERANCE_SECONDS';
/** We control the sender contract: it signs every attempt afresh, so ±5 minutes of skew is all it needs. */
export const GENERIC_DEFAULT_WINDOW_SECONDS = 300;

/** 256 bits: a shorter shared secret is guessable offline from one captured request. */
export const GENERIC_MIN_SECRET_BYTES = 32;

/** Secrets are used as their UTF-8 bytes, exactly as configured: no decoding step to get wrong. */
export function genericSecretKeys(credentials: readonly string[]): Buffer[] {
  return credentials.map((secret, index) => {
    const key = Buffer.from(secret, 'utf8');
    if (key.length < GENERIC_MIN_SECRET_BYTES) {
      throw new Error(
        `${GENERIC_CREDENTIALS_VARIABLE} entry ${index + 1} is shorter than ${GENERIC_MIN_SECRET_BYTES} bytes`,
      );
    }
    return key;
  });
}

const tolerance = toleranceSetting(GENERIC_TOLERANCE_VARIABLE, GENERIC_DEFAULT_WINDOW_SECONDS);

/** The window both `create()` and the inbox retention check use. */
export const genericWindow = tolerance.window;

export const genericProvider: ProviderDefinition = {
  name: GENERIC,
  credentialsVariable: GENERIC_CREDENTIALS_VARIABLE,
  secretArnVariable: 'GENERIC_WEBHOOK_SECRET_ARN',
  settings: [tolerance.setting],
  signatureWindow: tolerance.signatureWindow,
  create(deps): WebhookProvider {
    const keys = genericSecretKeys(deps.credentials);
    const window = genericWindow(deps.settings);
    return {
      name: GENERIC,
      async receive(request): Promise<Receipt> {
        const { id, signedAtMs } = verifyGenericWebhook(request, keys, deps.now(), window);
        const raw = bodyText(request.body);
        return { events: [genericEvent(parseJsonObject(raw), raw, id, signedAtMs)] };
      },
    };
  },
};
