/**
 * Mailgun webhook signatures: HMAC-SHA256(signing key, timestamp + token) as lowercase hex, carried
 * in the body's `signature` object. Only timestamp and token are signed, never `event-data`: a
 * captured signature object can be replayed with forged event data, which is why the caller checks
 * the window and claims the token (single use) after this succeeds.
 */
import { createHmac } from 'node:crypto';
import { AuthenticationError } from '../../errors.js';
import { matchesAny } from '../../hmac.js';
import { isRecord, objectMemberTexts } from '../../json.js';
import { decodeHexStrict, parseUnixSeconds } from '../../request.js';

const SHA256_BYTES = 32;
/** Mailgun's tokens are 50 characters; the bound only keeps nonce keys small. */
const MAX_TOKEN_LENGTH = 200;

/** The authentic part of a Mailgun request. */
export interface MailgunSignature {
  /** Exactly the signed timestamp text (digits). */
  timestampText: string;
  signedAtSeconds: number;
  token: string;
}

/**
 * Checks `body.signature` against every key (rotation overlap) and returns the signed fields.
 * `bodyText` is the exact text `body` was parsed from, used only to read a numeric timestamp as written
 * (the caller refuses duplicate keys right after this returns, so a body where the two could disagree
 * never gets through). Throws AuthenticationError on anything missing or wrong.
 * Does not check the window or the token's single use. Together with parsing, this is the
 * per-request crypto cost a benchmark should measure.
 */
export function verifyMailgunSignature(
  body: Readonly<Record<string, unknown>>,
  bodyText: string,
  keys: readonly Buffer[],
): MailgunSignature {
  const signature = body.signature;
  if (!isRecord(signature)) throw new AuthenticationError('Mailgun signature object is missing');
  const timestampText = signedTimestampText(signature.timestamp, bodyText);
  const signedAtSeconds = parseUnixSeconds(timestampText, 'Mailgun signature timestamp');
  const token = signature.token;
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
    throw new AuthenticationError('Mailgun signature token is missing or malformed');
  }
  if (typeof signature.signature !== 'string') throw new AuthenticationError('Mailgun signature is missing');
  const received = decodeHexStrict(signature.signature, 'Mailgun signature', SHA256_BYTES);

  // No separator between timestamp and token, so digits could be moved across the boundary
  // ("1529006854"+"1ab…" = "15290068541"+"ab…") without changing the HMAC. That shifts the timestamp
  // by a factor of ten, which the window then refuses: the window is part of this scheme's security.
  const message = timestampText + token;
  // Every key is tried, with no early exit once one matches (matchesAny): timing does not tell which
  // key, during a rotation, signed the request. The text goes straight to the HMAC (hashed as UTF-8,
  // the default) rather than through a Buffer copy.
  const expected: Buffer[] = [];
  for (const key of keys) expected.push(createHmac('sha256', key).update(message).digest());
  if (!matchesAny([received], expected)) throw new AuthenticationError('Mailgun signature does not verify');
  return { timestampText, signedAtSeconds, token };
}

/**
 * Mailgun sends the timestamp as a JSON string of digits. A JSON number is accepted too, but what is
 * signed is text, so we take the number as written in the body: `1529006854.0` or `1.529006854e9`
 * must not verify as "1529006854" (parseUnixSeconds then refuses anything that is not plain digits).
 */
function signedTimestampText(value: unknown, bodyText: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    const signatureText = objectMemberTexts(bodyText).get('signature');
    const written = signatureText === undefined ? undefined : objectMemberTexts(signatureText).get('timestamp');
    if (written !== undefined) return written;
  }
  throw new AuthenticationError('Mailgun signature timestamp is missing');
}
