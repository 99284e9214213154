/**
 * SendGrid Signed Event Webhook: ECDSA P-256 / SHA-256 over `timestamp || rawBody` (no separator),
 * signature = base64 of a DER ECDSA-Sig-Value, keys = base64 DER SubjectPublicKeyInfo.
 * Plain node:crypto (OpenSSL): ~20x faster than @sendgrid/eventwebhook's pure-JS ECDSA, which the
 * tests keep as an oracle only.
 */
import { type KeyObject, verify } from 'node:crypto';
import { AuthenticationError } from '../../errors.js';
import { decodeBase64Strict, parseUnixSeconds, requireHeader, type WebhookRequest } from '../../request.js';

export const SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

// A DER ECDSA-Sig-Value over P-256 is SEQUENCE { INTEGER r, INTEGER s }, each integer 1..33 bytes:
// 8..72 bytes in all, i.e. at most 96 base64 characters. Checking the header length first keeps a
// 10 KB garbage header away from the base64 regex and OpenSSL.
const MIN_SIGNATURE_BYTES = 8;
const MAX_SIGNATURE_CHARS = 96; // = 72 bytes

/** What a verified request carries besides its body. */
export interface VerifiedSendgridRequest {
  /** The signed timestamp header, Unix seconds. Authentic, but not yet checked for freshness. */
  signedAtSeconds: number;
}

/**
 * Verifies the signature headers against the raw body with every key until one matches (rotation).
 * Throws AuthenticationError on a missing, garbled, duplicated (comma-joined) or wrong signature.
 * Does not check the time window and does not parse the body: it is the per-request crypto cost,
 * and what a benchmark should call.
 */
export function verifySendgridSignature(request: WebhookRequest, keys: readonly KeyObject[]): VerifiedSendgridRequest {
  const signatureHeader = requireHeader(request, SIGNATURE_HEADER).trim();
  const timestampHeader = requireHeader(request, TIMESTAMP_HEADER).trim();
  // A comma-joined duplicate fails both strict parses below; we never pick one of the copies.
  const signedAtSeconds = parseUnixSeconds(timestampHeader, 'SendGrid timestamp header');
  if (signatureHeader.length > MAX_SIGNATURE_CHARS)
    throw new AuthenticationError('SendGrid signature has the wrong length');
  const signature = decodeBase64Strict(signatureHeader, 'SendGrid signature');
  if (signature.length < MIN_SIGNATURE_BYTES) throw new AuthenticationError('SendGrid signature has the wrong length');
  // The exact header text is signed, so it is concatenated as received (it is all digits by now).
  const message = Buffer.concat([Buffer.from(timestampHeader, 'utf8'), request.body]);
  for (const key of keys) {
    // dsaEncoding 'der' is the default; spelled out because SendGrid's format depends on it.
    if (verify('sha256', message, { key, dsaEncoding: 'der' }, signature)) return { signedAtSeconds };
  }
  throw new AuthenticationError('SendGrid signature does not verify');
}
