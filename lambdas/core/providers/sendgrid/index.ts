/**
 * Twilio SendGrid Event Webhook (signed): a JSON array of events per request, signed with ECDSA P-256.
 *
 * Order of work per request: verify the signature on the raw bytes → check the signed timestamp is
 * fresh → strictly parse the array → map each element. The signature comes first so that a
 * StaleRequestError always means "authentic but old": SendGrid does not document whether its retries
 * (up to 24 h) re-sign with a fresh timestamp, and that is how an operator would find out.
 */
import type { KeyObject } from 'node:crypto';
import { withRecipient } from '../../classification.js';
import { MalformedRequestError } from '../../errors.js';
import type { NormalizedEvent } from '../../event.js';
import { isRecord, parseJsonStrict } from '../../json.js';
import { arrayElementTexts } from '../../json-slices.js';
import type { ProviderDefinition, ProviderDeps, Receipt, WebhookProvider } from '../../provider.js';
import { bodyText, type WebhookRequest } from '../../request.js';
import { windowFromSettings, type Settings } from '../../settings.js';
import { assertFresh, parseEventTime, type Window } from '../../time.js';
import { classifySendgridEvent } from './map.js';
import { parseSendgridPublicKey, verifySendgridSignature } from './verify.js';

export const SENDGRID = 'sendgrid';
export const SENDGRID_TOLERANCE_SETTING = 'SENDGRID_TOLERANCE_SECONDS';
/**
 * 25 hours. SendGrid retries a non-2xx "for up to 24 hours after the event occurs", and nothing public
 * says whether a retry is re-signed with a fresh timestamp. If it is not, a shorter window turns every
 * retry after an outage into a 401 and the batch is lost; the extra hour covers skew and batching delay.
 * A replay inside the window is harmless: each event dedups on `sg_event_id` in the inbox.
 */
export const SENDGRID_DEFAULT_WINDOW_SECONDS = 25 * 60 * 60;

/** "These IDs are up to 100 characters long and are URL safe" (SendGrid event reference). */
const MAX_EVENT_ID_LENGTH = 100;

/** The window both `create()` and the inbox retention check use. */
export const sendgridWindow = (settings: Settings): Window => windowFromSettings(settings, SENDGRID_TOLERANCE_SETTING, SENDGRID_DEFAULT_WINDOW_SECONDS);

export const sendgridProvider: ProviderDefinition = {
  name: SENDGRID,
  credentialsVariable: 'SENDGRID_PUBLIC_KEYS',
  secretArnVariable: 'SENDGRID_SECRET_ARN',
  signatureWindow: (settings) => ({
    window: sendgridWindow(settings),
    variables: [SENDGRID_TOLERANCE_SETTING],
  }),
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

/**
 * Turns a verified body into events. A body that is not a strict JSON array (not JSON, not UTF-8,
 * a duplicate key anywhere) is refused with 400: no event in it can be trusted to be the one SendGrid
 * meant. Inside a well-formed array, one element we cannot use (not an object, no `sg_event_id`,
 * `event` or readable `timestamp`, or a recipient that is not an address) becomes an ignored event
 * with its reason, and the rest of the batch is admitted: SendGrid retries a 4xx'd batch with the
 * same bytes for 24 h, so refusing the batch would lose up to ~1,500 good events with it.
 *
 * `raw` is the element's exact text sliced from the body (not a re-serialization), so it is the bytes
 * SendGrid signed, and costs one extra linear scan of the body.
 */
export function parseSendgridBatch(text: string): NormalizedEvent[] {
  const body = parseJsonStrict(text);
  // A bare object is what SendGrid's own library signs as its legacy test payload: one event, not a batch.
  if (isRecord(body)) return [toEvent(body, text)];
  if (!Array.isArray(body)) throw new MalformedRequestError('SendGrid body is not a JSON array');
  const raws = arrayElementTexts(text);
  if (raws.length !== body.length) throw new Error('SendGrid batch slicing disagrees with JSON.parse');
  return body.map((element: unknown, index) => toEvent(element, raws[index]!));
}

function toEvent(element: unknown, raw: string): NormalizedEvent {
  const unusable = (why: string, eventId = ''): NormalizedEvent => ({
    provider: SENDGRID,
    eventId,
    recipient: '',
    kind: 'ignored',
    ignoredReason: `unusable SendGrid event: ${why}`,
    occurredAt: 0,
    detail: {},
    raw,
  });
  if (!isRecord(element)) return unusable('not an object');
  const eventId = validEventId(element.sg_event_id);
  if (typeof element.event !== 'string') return unusable('no event type', eventId);
  const classified = withRecipient(element.email, classifySendgridEvent(element.event, element));
  if (classified.kind === 'ignored') {
    // Nothing acts on it, so its shape is not insisted on: SendGrid has posted test events and
    // `dropped`/`Invalid` events with no sg_event_id. 0 means "time unknown".
    return { provider: SENDGRID, eventId: eventId ?? '', occurredAt: lenientTime(element.timestamp), raw, ...classified };
  }
  if (eventId === '') return unusable('no valid sg_event_id');
  // Seconds per the docs; Marketing Single Sends have been seen with milliseconds, which this also reads.
  let occurredAt: number;
  try {
    occurredAt = parseEventTime(element.timestamp, 'SendGrid event timestamp');
  } catch {
    // Without the event's time the ratchet cannot order it against the address's other events.
    return unusable('no readable timestamp', eventId);
  }
  return { provider: SENDGRID, eventId, occurredAt, raw, ...classified };
}

/** '' when absent or unusable: ignored events need no id (nothing is stored for them). */
function validEventId(value: unknown): string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_EVENT_ID_LENGTH ? value : '';
}

function lenientTime(value: unknown): number {
  try {
    return parseEventTime(value, 'SendGrid timestamp');
  } catch {
    return 0;
  }
}
