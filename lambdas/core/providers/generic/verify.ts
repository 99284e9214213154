/** Rules 1–4 of the generic contract (see index.ts): headers, signature and freshness, on the raw bytes. */
import { AuthenticationError } from '../../errors.js';
import { matchesUnderAnyKey } from '../../hmac.js';
import { parseUnixSeconds, requireHeader, type WebhookRequest } from '../../request.js';
import { assertFresh, type Window } from '../../time.js';

export const GENERIC_HEADERS = {
  id: 'x-event-id',
  timestamp: 'x-webhook-timestamp',
  signature: 'x-webhook-signature',
} as const;

/** Printable ASCII, no spaces (proxies trim header values), at most 200 characters. */
const EVENT_ID = /^[\x21-\x7e]{1,200}$/;
/** `v1=` and exactly 64 hex digits (a SHA-256 MAC). Case-insensitive hex; lower case recommended. */
const SIGNATURE = /^v1=[0-9a-fA-F]{64}$/;
const SIGNATURE_PREFIX = 'v1=';

/**
 * Rules 1–4: headers present and well-formed, signature matches one configured secret, timestamp
 * fresh. This is the whole per-request verification cost (what a benchmark should time).
 * Every failure here is 401: nothing has been proven about the request yet.
 */
export function verifyGenericWebhook(
  request: WebhookRequest,
  keys: readonly Buffer[],
  nowMs: number,
  window: Window,
): { id: string; signedAtMs: number } {
  const id = requireHeader(request, GENERIC_HEADERS.id);
  const timestamp = requireHeader(request, GENERIC_HEADERS.timestamp);
  const signature = requireHeader(request, GENERIC_HEADERS.signature);

  if (!EVENT_ID.test(id)) throw new AuthenticationError(`${GENERIC_HEADERS.id} is not 1..200 printable characters`);
  const signedAtMs = parseUnixSeconds(timestamp, GENERIC_HEADERS.timestamp) * 1000;
  if (!SIGNATURE.test(signature))
    throw new AuthenticationError(`${GENERIC_HEADERS.signature} is not exactly one v1=<64 hex>`);
  // Compared as lower-case hex text, not decoded: a text digest is cheaper than a Buffer one. The
  // pattern has proved the value ASCII hex, so latin1 gives its exact bytes; lower-casing it is how
  // upper-case hex is accepted, and is not secret-dependent (it is the sender's text).
  const presented = Buffer.from(signature.slice(SIGNATURE_PREFIX.length).toLowerCase(), 'latin1');

  // The timestamp comes first and is digits only, so the first `.` ends it; the id is bound again by
  // the body's own `id` (checked in map.ts), so no re-split of the signed string can change either.
  const prefix = `${timestamp}.${id}.`;
  // Against every key with no early exit: timing does not tell which secret matched.
  if (!matchesUnderAnyKey(presented, keys, prefix, request.body, 'hex')) {
    throw new AuthenticationError('signature does not match');
  }
  assertFresh(signedAtMs, nowMs, window);
  return { id, signedAtMs };
}
