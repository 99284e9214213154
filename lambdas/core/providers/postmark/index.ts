/**
 * Postmark outbound webhooks. Postmark does not sign requests (postmark.md §1): what it offers is
 * HTTP Basic credentials embedded in the webhook URL, and a published set of source IPs. We require
 * the credentials and optionally enforce an IP allowlist on top.
 *
 * Credentials: `POSTMARK_BASIC_AUTH` lists `user:password` pairs (several during rotation).
 * Settings: `POSTMARK_ALLOWED_IPS`, comma-separated addresses/CIDR ranges; unset means no IP check.
 */
import { sha256 } from '../../hmac.js';
import { parseIpAllowlist } from '../../ip-allowlist.js';
import { parseJsonObject } from '../../json.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText } from '../../request.js';
import { POSTMARK, postmarkEvent } from './map.js';
import { POSTMARK_ALLOWED_IPS_VARIABLE, verifyPostmarkBasicAuth, verifyPostmarkSource } from './verify.js';

export const POSTMARK_CREDENTIALS_VARIABLE = 'POSTMARK_BASIC_AUTH';

/**
 * Each configured `user:password` as the SHA-256 of its UTF-8 bytes. Comparing fixed-length digests
 * rather than the strings keeps the comparison constant-time regardless of the guessed length.
 * Never echoes the entry back: a config error must not leak a password into logs.
 */
export function postmarkCredentialDigests(credentials: readonly string[]): Buffer[] {
  return credentials.map((entry, index) => {
    const colon = entry.indexOf(':');
    // RFC 7617: the user-id cannot contain a colon, the password can. Both must be non-empty.
    if (colon <= 0 || colon === entry.length - 1) {
      throw new Error(`${POSTMARK_CREDENTIALS_VARIABLE} entry ${index + 1} is not user:password`);
    }
    return sha256(Buffer.from(entry, 'utf8'));
  });
}

export const postmarkProvider: ProviderDefinition = {
  name: POSTMARK,
  credentialsVariable: POSTMARK_CREDENTIALS_VARIABLE,
  secretArnVariable: 'POSTMARK_SECRET_ARN',
  settings: [
    {
      variable: POSTMARK_ALLOWED_IPS_VARIABLE,
      contextKey: 'postmarkAllowedIps',
      describe: 'Source addresses or CIDR ranges allowed to call the Postmark route (default: no IP check)',
    },
  ],
  create(deps): WebhookProvider {
    const digests = postmarkCredentialDigests(deps.credentials);
    const allowlist = parseIpAllowlist(deps.settings[POSTMARK_ALLOWED_IPS_VARIABLE], POSTMARK_ALLOWED_IPS_VARIABLE);
    return {
      name: POSTMARK,
      async receive(request): Promise<Receipt> {
        verifyPostmarkSource(request, allowlist);
        verifyPostmarkBasicAuth(request, digests);
        const raw = bodyText(request.body);
        // One record per request (postmark.md §2): an array or any other top level is malformed.
        return { events: [postmarkEvent(parseJsonObject(raw), raw)] };
      },
    };
  },
};
