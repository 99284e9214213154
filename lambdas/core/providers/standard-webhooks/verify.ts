/** Standard Webhooks authentication on the raw bytes (index.ts has the contract and where we are stricter). */
import { AuthenticationError } from '../../errors.js';
import { hmacSha256Text, matchesAny, presentedText, versionedValues } from '../../hmac.js';
import { parseUnixSeconds, type WebhookRequest } from '../../request.js';
import { assertFresh, type Window } from '../../time.js';

/** A SHA-256 MAC in padded base64: 32 bytes → 44 characters. */
const SIGNATURE_TEXT_LENGTH = 44;
const ID = /^[\x21-\x2d\x2f-\x7e]{1,256}$/; // printable ASCII except `.`

export interface StandardHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

/**
 * The Svix alias adapter: `svix-id`/`svix-timestamp`/`svix-signature` carry exactly the Standard
 * Webhooks semantics, so each is just another name for its `webhook-*` header. When both names are
 * present they must agree: a proxy or attacker adding the other spelling must not choose which copy
 * we verify and which copy some other consumer reads.
 */
export function standardHeaders(request: WebhookRequest): StandardHeaders {
  // Constant names, not `webhook-${name}`: building each key per request costs more than the lookup.
  return {
    id: aliased(request, 'webhook-id', 'svix-id'),
    timestamp: aliased(request, 'webhook-timestamp', 'svix-timestamp'),
    signature: aliased(request, 'webhook-signature', 'svix-signature'),
  };
}

function aliased(request: WebhookRequest, name: string, svixName: string): string {
  const standard = request.headers[name];
  const svix = request.headers[svixName];
  if (standard !== undefined && svix !== undefined && standard !== svix) {
    throw new AuthenticationError(`${name} and ${svixName} disagree`);
  }
  const value = standard ?? svix;
  if (value === undefined || value.trim() === '') throw new AuthenticationError(`missing ${name} header`);
  return value;
}

/**
 * Every `v1` entry of MAC length, as text bytes. We compare base64 text with base64 text (as the
 * reference library does) instead of strictly decoding each entry: garbled, unpadded or otherwise
 * non-canonical entries simply do not match, and entries of another length are not even encoded.
 */
function presentedSignatures(header: string): Buffer[] {
  const presented: Buffer[] = [];
  for (const value of versionedValues(header, ' ', ',', 'v1')) {
    if (value.length === SIGNATURE_TEXT_LENGTH) presented.push(presentedText(value));
  }
  return presented;
}

/**
 * Authenticates a request: the per-request verification cost, and what a benchmark should time.
 * Returns the signed id and timestamp (ms) for the mapping step.
 */
export function verifyStandardWebhook(
  request: WebhookRequest,
  keys: readonly Buffer[],
  nowMs: number,
  window: Window,
): { id: string; signedAtMs: number } {
  const headers = standardHeaders(request);
  if (!ID.test(headers.id)) throw new AuthenticationError('webhook-id is not a valid id');
  const signedAtMs = parseUnixSeconds(headers.timestamp, 'webhook-timestamp') * 1000;
  const prefix = `${headers.id}.${headers.timestamp}.`;
  const expected: Buffer[] = [];
  for (const key of keys) expected.push(hmacSha256Text(key, prefix, request.body, 'base64'));
  // Every entry against every key, no early exit (matchesAny): timing does not tell which matched.
  if (!matchesAny(presentedSignatures(headers.signature), expected)) {
    throw new AuthenticationError('no matching v1 signature');
  }
  // After the signature, so "stale" is only ever said about a request we know is authentic.
  assertFresh(signedAtMs, nowMs, window);
  return { id: headers.id, signedAtMs };
}
