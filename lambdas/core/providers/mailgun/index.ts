/**
 * Mailgun webhooks: one event per request, `{ "signature": {timestamp, token, signature}, "event-data": {...} }`.
 *
 * The signature lives in the body, so the body is parsed first (natively: syntax only), then, in this
 * order: HMAC over timestamp+token → duplicate keys refused (a body cannot carry two `token`s or two
 * `signature`s for two parsers to disagree on) → timestamp within the window → event-data mapped →
 * token claimed as single-use. The claim comes last so the nonce table only ever holds tokens of
 * requests we accept; and it is what stops a captured signature object being replayed with forged
 * event-data, since Mailgun does not sign event-data at all.
 */
import { createHash } from 'node:crypto';
import { isWebhookError, MalformedRequestError, ReplayError, TransientError } from '../../errors.js';
import { assertNoDuplicateKeys, isRecord, parseJsonSyntax } from '../../json.js';
import type { NonceStore, ProviderDefinition, ProviderDeps, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, type WebhookRequest } from '../../request.js';
import { assertFresh, type Clock, FIVE_MINUTES_MS, type Window } from '../../time.js';
import { toleranceSetting } from '../tolerance.js';
import { MAILGUN, mailgunEvent } from './map.js';
import { verifyMailgunSignature } from './verify.js';

export const MAILGUN_TOLERANCE_SETTING = 'MAILGUN_TOLERANCE_SECONDS';
/**
 * 9 hours. Mailgun retries for about 8 hours (5 min, 10 min, 15 min, 1 h, 2 h, 4 h), and public
 * references say the `signature` object is the same on every retry, so the signed timestamp is the
 * first attempt's. The extra hour covers skew and Mailgun's own queueing. A replay inside the window
 * is harmless: the same body passes the token claim (same fingerprint) and dedups in the inbox.
 */
export const MAILGUN_DEFAULT_WINDOW_SECONDS = 9 * 60 * 60;

/**
 * A claimed token only has to outlive the window: after `timestamp + maxAge` the window refuses it
 * anyway, so the claim lives for the whole window (9 h by default) plus this margin, which covers the
 * nonce store judging expiry by its own clock, not ours.
 */
const CLAIM_MARGIN_MS = FIVE_MINUTES_MS;

/** Signing keys as HMAC key bytes: the key string's UTF-8 bytes, as Mailgun's own samples use it. */
export function mailgunKeyBytes(credentials: readonly string[]): Buffer[] {
  return credentials.map((credential) => {
    const key = credential.trim();
    if (key === '') throw new Error('Mailgun signing key is empty');
    return Buffer.from(key, 'utf8');
  });
}

const tolerance = toleranceSetting(MAILGUN_TOLERANCE_SETTING, MAILGUN_DEFAULT_WINDOW_SECONDS);

/** The window both `create()` and the inbox retention check use. */
export const mailgunWindow = tolerance.window;

export const mailgunProvider: ProviderDefinition = {
  name: MAILGUN,
  credentialsVariable: 'MAILGUN_SIGNING_KEYS',
  secretArnVariable: 'MAILGUN_SECRET_ARN',
  settings: [tolerance.setting],
  signatureWindow: tolerance.signatureWindow,
  create(deps: ProviderDeps): WebhookProvider {
    const keys = mailgunKeyBytes(deps.credentials);
    const window = mailgunWindow(deps.settings);
    return {
      name: MAILGUN,
      receive: (request) => receiveMailgun(request, keys, window, deps.now, deps.nonces),
    };
  },
};

async function receiveMailgun(
  request: WebhookRequest,
  keys: readonly Buffer[],
  window: Window,
  now: Clock,
  nonces: NonceStore,
): Promise<Receipt> {
  const text = bodyText(request.body);
  const body = parseJsonSyntax(text, 'Mailgun body');
  if (!isRecord(body)) throw new MalformedRequestError('Mailgun body is not a JSON object');
  const signed = verifyMailgunSignature(body, text, keys);
  // Duplicate keys are refused right after authentication and before anything reads event-data or
  // claims the token. A duplicated signed field (two tokens) fails here or, when JSON.parse kept the
  // unsigned copy, already failed the signature: either way the request is rejected.
  assertNoDuplicateKeys(text, 'Mailgun body');
  const signedAtMs = signed.signedAtSeconds * 1000;
  assertFresh(signedAtMs, now(), window);
  const event = mailgunEvent(body['event-data'], text);

  // The fingerprint lets a provider retry of the very same body through (the inbox dedups it), while
  // the same token with any other body is a replay.
  const fingerprint = createHash('sha256').update(request.body).digest('hex');
  let claimed: boolean;
  try {
    claimed = await nonces.claim(MAILGUN, signed.token, fingerprint, claimExpiresAtMs(signedAtMs, window));
  } catch (cause) {
    throw isWebhookError(cause) ? cause : new TransientError('could not claim the Mailgun token', { cause });
  }
  if (!claimed) throw new ReplayError('Mailgun token was already used with a different body');
  return { events: [event] };
}

/** When a token claim may be released: the end of the window for that signed time, plus the margin. */
export function claimExpiresAtMs(signedAtMs: number, window: Window): number {
  return signedAtMs + window.maxAgeMs + CLAIM_MARGIN_MS;
}
