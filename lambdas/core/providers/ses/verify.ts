/**
 * The full SNS gate, in the order that keeps the cheap and attacker-independent checks first and
 * the only network call (the certificate) last:
 *   shape → TopicArn allowlist → SignatureVersion → SigningCertURL → freshness → certificate → signature.
 * Nothing before the certificate fetch depends on anything but the request and configuration, so a
 * forged request for a foreign topic or a foreign host never makes us fetch anything.
 */
import type { KeyObject } from 'node:crypto';
import { ForbiddenSenderError, isWebhookError, MalformedRequestError, TransientError } from '../../errors.js';
import type { CertificateSource } from '../../provider.js';
import { bodyText, type WebhookRequest } from '../../request.js';
import { assertFresh, type Clock, parseEventTime, type Window } from '../../time.js';
import { assertSigningCertUrl } from './sns/cert-url.js';
import { readSnsRequest, type SnsEnvelope } from './sns/envelope.js';
import { parseSignatureVersion, type SnsSignatureVersion, verifySnsSignature } from './sns/signature.js';
import { parseTopicArn, type TopicArn } from './sns/topic-arn.js';

export interface SnsVerifierOptions {
  /** The allowed TopicArns; must be non-empty and each a valid SNS topic ARN. */
  allowedTopics: readonly string[];
  certificates: CertificateSource;
  now: Clock;
  minimumSignatureVersion: SnsSignatureVersion;
  window: Window;
}

export interface VerifiedSnsMessage {
  envelope: SnsEnvelope;
  topic: TopicArn;
  /** The signed Timestamp, epoch ms. */
  timestampMs: number;
  /** The body as UTF-8 text (the `raw` of the events it yields). */
  text: string;
}

/** `waiveMaxAge`: only for messages read from our own SNS dead-letter queue (see ReceiveOptions). */
export type SnsVerifier = (request: WebhookRequest, options?: { waiveMaxAge?: boolean }) => Promise<VerifiedSnsMessage>;

export function createSnsVerifier(options: SnsVerifierOptions): SnsVerifier {
  const allowed = allowedTopicSet(options.allowedTopics);
  const { certificates, now, minimumSignatureVersion, window } = options;

  return async (request, verifyOptions) => {
    const envelope = readSnsRequest(request);
    const topic = parseTopicArn(envelope.TopicArn);
    if (!allowed.has(topic.arn)) throw new ForbiddenSenderError('SNS topic is not on the allowlist');
    parseSignatureVersion(envelope.SignatureVersion, minimumSignatureVersion);
    const certUrl = assertSigningCertUrl(envelope.SigningCertURL, topic);
    const timestampMs = parseSnsTimestamp(envelope.Timestamp);
    // A dead-lettered message is old by design; a timestamp in the future is never accepted.
    assertFresh(
      timestampMs,
      now(),
      verifyOptions?.waiveMaxAge === true ? { ...window, maxAgeMs: Number.POSITIVE_INFINITY } : window,
    );
    const key = await fetchKey(certificates, certUrl);
    verifySnsSignature(envelope, key, minimumSignatureVersion);
    return { envelope, topic, timestampMs, text: bodyText(request.body) };
  };
}

/** Validates the configured allowlist up front: a typo must fail the deploy, not every request. */
export function allowedTopicSet(topics: readonly string[]): ReadonlySet<string> {
  const set = new Set<string>();
  for (const entry of topics) {
    const arn = entry.trim();
    if (arn === '') continue;
    try {
      parseTopicArn(arn);
    } catch {
      throw new Error(`SNS topic allowlist entry is not an SNS topic ARN: ${arn}`);
    }
    set.add(arn);
  }
  if (set.size === 0) throw new Error('SNS topic allowlist is empty');
  return set;
}

// SNS writes `2012-05-02T00:54:06.655Z`. Signed data gets the strict shape, not parseEventTime's leniency.
const SNS_TIMESTAMP = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z$/;

export function parseSnsTimestamp(value: string): number {
  if (!SNS_TIMESTAMP.test(value)) throw new MalformedRequestError('SNS Timestamp is not an ISO-8601 UTC time');
  return parseEventTime(value, 'SNS Timestamp');
}

/** A source's own WebhookErrors pass through; anything else it throws is treated as a retryable outage. */
async function fetchKey(certificates: CertificateSource, url: string): Promise<KeyObject> {
  try {
    return await certificates.get(url);
  } catch (error) {
    if (isWebhookError(error)) throw error;
    throw new TransientError('SNS signing certificate could not be loaded', { cause: error });
  }
}
