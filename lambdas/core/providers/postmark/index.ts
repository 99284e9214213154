/**
 * Postmark outbound webhooks. Postmark does not sign requests (postmark.md §1): what it offers is
 * HTTP Basic credentials embedded in the webhook URL, and a published set of source IPs. We require
 * the credentials and optionally enforce an IP allowlist on top.
 *
 * Credentials: `POSTMARK_BASIC_AUTH` lists `user:password` pairs (several during rotation).
 * Settings: `POSTMARK_ALLOWED_IPS`, comma-separated addresses/CIDR ranges; unset means no IP check.
 */
import { AuthenticationError, ForbiddenSenderError } from '../../errors.js';
import { matchesAny, sha256 } from '../../hmac.js';
import { parseIpAllowlist, type IpAllowlist } from '../../ip-allowlist.js';
import { parseJsonObject } from '../../json.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, requireHeader, type WebhookRequest } from '../../request.js';
import { POSTMARK, postmarkEvent } from './map.js';

export const POSTMARK_CREDENTIALS_VARIABLE = 'POSTMARK_BASIC_AUTH';
export const POSTMARK_ALLOWED_IPS_VARIABLE = 'POSTMARK_ALLOWED_IPS';

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

// `Basic <token68>`; the scheme is case-insensitive (RFC 7617). Exactly one token: a header sent twice
// arrives comma-joined and must not parse. The token must be non-empty canonical padded base64, checked
// by this same pattern (as decodeBase64Strict would) so the header is scanned once, then decoded plainly.
const BASIC = /^basic +((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?) *$/i;

/**
 * Checks `Authorization: Basic …` against every configured pair. The same message for a wrong user,
 * a wrong password and a garbled header, so a prober learns nothing about which part was wrong.
 */
export function verifyPostmarkBasicAuth(request: WebhookRequest, digests: readonly Buffer[]): void {
  const header = requireHeader(request, 'authorization');
  const token = BASIC.exec(header)?.[1];
  if (!token) throw new AuthenticationError('authorization is not Basic credentials');
  if (!matchesAny([sha256(Buffer.from(token, 'base64'))], digests)) {
    throw new AuthenticationError('Basic credentials do not match');
  }
}

/**
 * The source-IP gate. It runs before the credential check so an address off the list cannot use us
 * as a password oracle. A missing sourceIp with an allowlist configured is a rejection: we cannot
 * prove where the request came from.
 */
export function verifyPostmarkSource(request: WebhookRequest, allowlist: IpAllowlist | undefined): void {
  if (allowlist !== undefined && !allowlist.allows(request.sourceIp)) {
    throw new ForbiddenSenderError(`source IP is not on ${POSTMARK_ALLOWED_IPS_VARIABLE}`);
  }
}

export const postmarkProvider: ProviderDefinition = {
  name: POSTMARK,
  credentialsVariable: POSTMARK_CREDENTIALS_VARIABLE,
  secretArnVariable: 'POSTMARK_SECRET_ARN',
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
