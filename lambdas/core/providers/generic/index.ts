/**
 * The generic webhook contract: for any sender that is not one of the named providers.
 * Implementers read docs/generic-webhook-contract.md; this file is that contract in code, rule by rule.
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
import { AuthenticationError, MalformedRequestError } from '../../errors.js';
import { normalizeRecipient, type ActionableKind, type NormalizedEvent } from '../../event.js';
import { matchesUnderAnyKey } from '../../hmac.js';
import { parseJsonObject } from '../../json.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, parseUnixSeconds, requireHeader, type WebhookRequest } from '../../request.js';
import { windowFromSettings, type Settings } from '../../settings.js';
import { assertFresh, parseEventTime, type Window } from '../../time.js';
import { isTopicName, TOPIC_NAME_PATTERN } from '../../topics.js';

export const GENERIC = 'generic';
export const GENERIC_CREDENTIALS_VARIABLE = 'GENERIC_WEBHOOK_SECRETS';
export const GENERIC_TOLERANCE_VARIABLE = 'GENERIC_WEBHOOK_TOLERANCE_SECONDS';
/** We control the sender contract: it signs every attempt afresh, so ±5 minutes of skew is all it needs. */
export const GENERIC_DEFAULT_WINDOW_SECONDS = 300;

export const GENERIC_HEADERS = {
  id: 'x-event-id',
  timestamp: 'x-webhook-timestamp',
  signature: 'x-webhook-signature',
} as const;

/** The body `type` values: exactly the actionable kinds of the normalized model. */
export const GENERIC_EVENT_TYPES: readonly ActionableKind[] = [
  'delivered',
  'soft_bounce',
  'hard_bounce',
  'complaint',
  'unsubscribe',
  'subscribe',
];

/** 256 bits: a shorter shared secret is guessable offline from one captured request. */
export const GENERIC_MIN_SECRET_BYTES = 32;

/** Printable ASCII, no spaces (proxies trim header values), at most 200 characters. */
const EVENT_ID = /^[\x21-\x7e]{1,200}$/;
/** `v1=` and exactly 64 hex digits (a SHA-256 MAC). Case-insensitive hex; lower case recommended. */
const SIGNATURE = /^v1=[0-9a-fA-F]{64}$/;
const SIGNATURE_PREFIX = 'v1=';

/** Secrets are used as their UTF-8 bytes, exactly as configured: no decoding step to get wrong. */
export function genericSecretKeys(credentials: readonly string[]): Buffer[] {
  return credentials.map((secret, index) => {
    const key = Buffer.from(secret, 'utf8');
    if (key.length < GENERIC_MIN_SECRET_BYTES) {
      throw new Error(`${GENERIC_CREDENTIALS_VARIABLE} entry ${index + 1} is shorter than ${GENERIC_MIN_SECRET_BYTES} bytes`);
    }
    return key;
  });
}

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
  if (!SIGNATURE.test(signature)) throw new AuthenticationError(`${GENERIC_HEADERS.signature} is not exactly one v1=<64 hex>`);
  // Compared as lower-case hex text, not decoded: a text digest is cheaper than a Buffer one. The
  // pattern has proved the value ASCII hex, so latin1 gives its exact bytes; lower-casing it is how
  // upper-case hex is accepted, and is not secret-dependent (it is the sender's text).
  const presented = Buffer.from(signature.slice(SIGNATURE_PREFIX.length).toLowerCase(), 'latin1');

  // The timestamp comes first and is digits only, so the first `.` ends it; the id is bound again by
  // the body's own `id` (checked below), so no re-split of the signed string can change either.
  const prefix = `${timestamp}.${id}.`;
  // Against every key with no early exit: timing does not tell which secret matched.
  if (!matchesUnderAnyKey(presented, keys, prefix, request.body, 'hex')) {
    throw new AuthenticationError('signature does not match');
  }
  assertFresh(signedAtMs, nowMs, window);
  return { id, signedAtMs };
}

/**
 * Rules 5–8, on an authenticated body. These are 400s: the request is genuine but does not follow
 * the contract, and retrying it will not help.
 */
export function genericEvent(body: Record<string, unknown>, raw: string, id: string, signedAtMs: number): NormalizedEvent {
  // The body id must repeat the header id. Both are signed, so a mismatch is a sender bug, not a forgery.
  if (body['id'] !== id) throw new MalformedRequestError(`body id does not equal ${GENERIC_HEADERS.id}`);
  const type = body['type'];
  if (typeof type !== 'string' || !(GENERIC_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new MalformedRequestError(`type is not one of ${GENERIC_EVENT_TYPES.join(', ')}`);
  }
  const recipient = normalizeRecipient(body['recipient']);
  const topic = genericTopic(type, body['topic']);
  // Optional; absent or null means "when it was signed".
  const occurred = body['occurredAt'];
  const occurredAt = occurred === undefined || occurred === null ? signedAtMs : parseEventTime(occurred, 'occurredAt');
  return {
    provider: GENERIC,
    eventId: id,
    recipient,
    kind: type as ActionableKind,
    occurredAt,
    detail: { providerEventType: type },
    raw,
    ...(topic === undefined ? {} : { topic }),
  };
}

/** The window both `create()` and the inbox retention check use. */
export const genericWindow = (settings: Settings): Window => windowFromSettings(settings, GENERIC_TOLERANCE_VARIABLE, GENERIC_DEFAULT_WINDOW_SECONDS);

/** `topic`: optional on unsubscribe (absent or null: global), required on subscribe, refused elsewhere. */
function genericTopic(type: string, value: unknown): string | undefined {
  if (value === undefined || value === null) {
    if (type === 'subscribe') throw new MalformedRequestError('subscribe needs a topic');
    return undefined;
  }
  if (type !== 'unsubscribe' && type !== 'subscribe') throw new MalformedRequestError('topic is only allowed on unsubscribe and subscribe');
  if (!isTopicName(value)) throw new MalformedRequestError(`topic does not match ${TOPIC_NAME_PATTERN.source}`);
  return value;
}

export const genericProvider: ProviderDefinition = {
  name: GENERIC,
  credentialsVariable: GENERIC_CREDENTIALS_VARIABLE,
  secretArnVariable: 'GENERIC_WEBHOOK_SECRET_ARN',
  signatureWindow: (settings) => ({
    window: genericWindow(settings),
    variables: [GENERIC_TOLERANCE_VARIABLE],
  }),
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
