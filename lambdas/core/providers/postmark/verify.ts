/**
 * Postmark's authentication: it signs nothing, so a request proves itself by its source IP (optional
 * allowlist) and the HTTP Basic credentials embedded in the webhook URL.
 */
import { AuthenticationError, ForbiddenSenderError } from '../../errors.js';
import { matchesAny, sha256 } from '../../hmac.js';
import type { IpAllowlist } from '../../ip-allowlist.js';
import { requireHeader, type WebhookRequest } from '../../request.js';

export const POSTMARK_ALLOWED_IPS_VARIABLE = 'POSTMARK_ALLOWED_IPS';

// `Basic <token68>`; the scheme is case-insensitive (RFC 7617). Exactly one token: a header sent twice
// arrives comma-joined and must not parse. The token must be non-empty canonical padded base64, checked
// by this same pattern (as decodeBase64Strict would) so the header is scanned once, then decoded plainly.
const BASIC = /^basic +((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?) *$/i;

/**
 * Checks `Authorization: Basic …` against every configured pair. A wrong user and a wrong password get
 * the same message, so a prober learns nothing about which part was wrong (a garbled header is told so).
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
