/**
 * The SNS HTTP(S) envelope: the JSON document SNS POSTs, whatever the Content-Type says
 * (SNS sends `text/plain; charset=UTF-8` by default). This module only checks shape; nothing here
 * is trusted until verify.ts has checked the signature over the fields it returns.
 */
import { MalformedRequestError } from '../../../errors.js';
import { parseJsonObject } from '../../../json.js';
import { bodyText, type WebhookRequest } from '../../../request.js';

export const SNS_MESSAGE_TYPES = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] as const;
export type SnsMessageType = (typeof SNS_MESSAGE_TYPES)[number];

interface SnsEnvelopeBase {
  readonly Type: SnsMessageType;
  readonly MessageId: string;
  readonly TopicArn: string;
  readonly Message: string;
  readonly Timestamp: string;
  readonly SignatureVersion: string;
  readonly Signature: string;
  readonly SigningCertURL: string;
}

export interface SnsNotification extends SnsEnvelopeBase {
  readonly Type: 'Notification';
  /** Absent when nothing was published as a subject; `""` is present and therefore signed. */
  readonly Subject?: string;
}

export interface SnsConfirmation extends SnsEnvelopeBase {
  readonly Type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
  readonly Token: string;
  /** Signed, carried through for audit only: we never fetch it (confirmation is an explicit operator act). */
  readonly SubscribeURL: string;
}

export type SnsEnvelope = SnsNotification | SnsConfirmation;

/** Fields every Type carries and that must be non-empty strings. */
const COMMON_FIELDS = [
  'MessageId',
  'TopicArn',
  'Timestamp',
  'SignatureVersion',
  'Signature',
  'SigningCertURL',
] as const;
const CONFIRMATION_FIELDS = ['Token', 'SubscribeURL'] as const;

export const MESSAGE_TYPE_HEADER = 'x-amz-sns-message-type';
export const RAW_DELIVERY_HEADER = 'x-amz-sns-rawdelivery';

/**
 * Header checks, then the body. Raw message delivery strips the envelope and its signature, so such
 * a request can never be authenticated: refused (4xx, SNS does not retry it) rather than half-trusted.
 * The message-type header is unsigned, but SNS always sends it and always equal to the body's Type;
 * a disagreement means the request was not produced by SNS as-is.
 */
export function readSnsRequest(request: WebhookRequest): SnsEnvelope {
  const rawDelivery = request.headers[RAW_DELIVERY_HEADER];
  if (rawDelivery !== undefined && rawDelivery.trim().toLowerCase() === 'true') {
    throw new MalformedRequestError('SNS raw message delivery carries no signature; disable it on the subscription');
  }
  const headerType = request.headers[MESSAGE_TYPE_HEADER];
  if (headerType === undefined || headerType.trim() === '') {
    throw new MalformedRequestError(`missing ${MESSAGE_TYPE_HEADER} header`);
  }
  const envelope = parseSnsEnvelope(bodyText(request.body));
  if (headerType !== envelope.Type) {
    throw new MalformedRequestError(`${MESSAGE_TYPE_HEADER} header does not match the body Type`);
  }
  return envelope;
}

/** JSON (duplicate keys refused) and shape: every field the signature covers must be a string. */
export function parseSnsEnvelope(text: string): SnsEnvelope {
  const body = parseJsonObject(text, 'SNS envelope');
  if (!('Type' in body) && !('Signature' in body)) {
    // What a raw-delivered SES payload looks like when the header was lost on the way.
    throw new MalformedRequestError('body is not an SNS envelope');
  }
  const type = body['Type'];
  if (typeof type !== 'string' || !(SNS_MESSAGE_TYPES as readonly string[]).includes(type)) {
    throw new MalformedRequestError('unknown SNS message Type');
  }
  for (const field of COMMON_FIELDS) requireNonEmptyString(body, field);
  // Message is signed too; it may legitimately be any string, including one we later fail to parse.
  if (typeof body['Message'] !== 'string') throw new MalformedRequestError('Message is missing or not a string');

  if (type === 'Notification') {
    if (Object.hasOwn(body, 'Subject') && typeof body['Subject'] !== 'string') {
      // `null` included: "absent" and "empty" sign differently, and null is neither.
      throw new MalformedRequestError('Subject is not a string');
    }
  } else {
    for (const field of CONFIRMATION_FIELDS) requireNonEmptyString(body, field);
  }
  return body as unknown as SnsEnvelope;
}

function requireNonEmptyString(body: Record<string, unknown>, field: string): void {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw new MalformedRequestError(`${field} is missing or not a string`);
  }
}

/**
 * The request SNS would have POSTed, for an envelope read from a queue (the SES feed, with raw message
 * delivery off, or a dead-letter queue): the body as is, and the unsigned headers SNS always adds,
 * taken from the body. Nothing here is trusted: the body is verified like any request's. A body that
 * is not JSON gets empty headers and is refused as malformed, like the HTTP route would refuse it.
 */
export function snsRequestFromQueuedBody(body: string): WebhookRequest {
  let envelope: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object') envelope = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: verification refuses it.
  }
  const header = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    body: Buffer.from(body, 'utf8'),
    headers: {
      'content-type': 'text/plain; charset=UTF-8',
      [MESSAGE_TYPE_HEADER]: header(envelope.Type),
      'x-amz-sns-message-id': header(envelope.MessageId),
      'x-amz-sns-topic-arn': header(envelope.TopicArn),
    },
  };
}
