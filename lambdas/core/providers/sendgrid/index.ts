/**
 * Twilio SendGrid Event Webhook (signed): a JSON array of events per request, signed with ECDSA P-256.
 *
 * Order of work per request: verify the signature on the raw bytes → check the signed timestamp is
 * fresh → strictly parse the array → map each element. The signature comes first so that a
 * StaleRequestError always means "authentic but old": SendGrid does not document whether its retries
 * (up to 24 h) re-sign with a fresh timestamp, and that is how an operator would find out.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { ProviderDefinition, ProviderDeps, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, decodeBase64Strict, type WebhookRequest } from '../../request.js';
import { assertFresh, type Window } from '../../time.js';
import { toleranceSetting } from '../tolerance.js';
import { parseSendgridBatch, SENDGRID } from './map.js';
import { verifySendgridSignature } from './verify.js';

export const SENDGRID_TOLERANCE_SETTING = 'SENDGRID_TOLERANCE_SECONDS';
/**
 * 25 hours. SendGrid retries a non-2xx "for up to 24 hours after the event occurs", and nothing public
 * says whether a retry is re-signed with a fresh timestamp. If it is not, a shorter window turns every
 * retry after an outage into a 401 and the batch is lost; the extra hour covers skew and batching delay.
 * A replay inside the window is harmless: each event dedups on `sg_event_id` in the inbox.
 */
export const SENDGRID_DEFAULT_WINDOW_SECONDS = 25 * 60 * 60;

const PEM_PUBLIC_KEY = /^-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----$/;

/**
 * Parses one configured key: base64 DER SPKI (what SendGrid's settings API returns) or the same in
 * PEM armor. Throws a plain Error (a configuration mistake, surfaced at create() and never as a 4xx)
 * for anything that is not an EC P-256 public key.
 *
 * Only `PUBLIC KEY` armor is accepted: createPublicKey would happily derive a public key from a
 * private one, which would hide that a private key had been pasted into configuration.
 */
export function parseSendgridPublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  const pem = PEM_PUBLIC_KEY.exec(trimmed);
  // PEM bodies are base64 split over lines; environment files often carry the newlines as a literal `\n`.
  const base64 = pem ? pem[1]!.replace(/\\n/g, '').replace(/\s+/g, '') : trimmed;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: decodeBase64Strict(base64, 'SendGrid public key'), format: 'der', type: 'spki' });
  } catch {
    throw new Error('SendGrid public key is neither base64 DER SubjectPublicKeyInfo nor a PEM public key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('SendGrid public key is not an EC P-256 key');
  }
  return key;
}

const tolerance = toleranceSetting(SENDGRID_TOLERANCE_SETTING, SENDGRID_DEFAULT_WINDOW_SECONDS);

/** The window both `create()` and the inbox retention check use. */
export const sendgridWindow = tolerance.window;

export const sendgridProvider: ProviderDefinition = {
  name: SENDGRID,
  credentialsVariable: 'SENDGRID_PUBLIC_KEYS',
  secretArnVariable: 'SENDGRID_SECRET_ARN',
  // sg_event_id, documented as the dedup key, changes on SendGrid's retries of one event.
  keysByContent: true,
  settings: [tolerance.setting],
  signatureWindow: tolerance.signatureWindow,
  create(deps: ProviderDeps): WebhookProvider {
    // Parsed once per credentials list: a bad key or setting fails here, loudly, not per request.
    const keys = deps.credentials.map(parseSendgridPublicKey);
    const window = sendgridWindow(deps.settings);
    return {
      name: SENDGRID,
      receive: async (request) => receiveSendgrid(request, keys, window, deps.now()),
    };
  },
};

function receiveSendgrid(request: WebhookRequest, keys: readonly KeyObject[], window: Window, nowMs: number): Receipt {
  const { signedAtSeconds } = verifySendgridSignature(request, keys);
  assertFresh(signedAtSeconds * 1000, nowMs, window);
  return { events: parseSendgridBatch(bodyText(request.body)) };
}
