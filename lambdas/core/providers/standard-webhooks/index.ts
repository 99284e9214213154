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
import { AuthenticationError } from '../../errors.js';
import { hmacSha256Text, matchesAny, presentedText, versionedValues } from '../../hmac.js';
import { parseJsonObject } from '../../json.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, decodeBase64Strict, parseUnixSeconds, type WebhookRequest } from '../../request.js';
import { windowFromSettings, type Settings } from '../../settings.js';
import { assertFresh, type Window } from '../../time.js';
import { STANDARD, standardWebhookEvents } from './map.js';

export const STANDARD_CREDENTIALS_VARIABLE = 'STANDARD_WEBHOOK_SECRETS';
export const STANDARD_TOLERANCE_VARIABLE = 'STANDARD_WEBHOOK_TOLERANCE_SECONDS';
/**
 * ±5 minutes, like every reference library: the spec has the sender re-sign each retry with the
 * attempt's own timestamp, so a retry hours later is still fresh and a wider window buys nothing.
 */
export const STANDARD_DEFAULT_WINDOW_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
/** A SHA-256 MAC in padded base64: 32 bytes → 44 characters. */
const SIGNATURE_TEXT_LENGTH = 44;
const ID = /^[\x21-\x2d\x2f-\x7e]{1,256}$/; // printable ASCII except `.`

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

/** The window both `create()` and the inbox retention check use. */
export const standardWindow = (settings: Settings): Window => windowFromSettings(settings, STANDARD_TOLERANCE_VARIABLE, STANDARD_DEFAULT_WINDOW_SECONDS);

export const standardWebhooksProvider: ProviderDefinition = {
  name: STANDARD,
  credentialsVariable: STANDARD_CREDENTIALS_VARIABLE,
  secretArnVariable: 'STANDARD_WEBHOOK_SECRET_ARN',
  signatureWindow: (settings) => ({
    window: standardWindow(settings),
    variables: [STANDARD_TOLERANCE_VARIABLE],
  }),
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
