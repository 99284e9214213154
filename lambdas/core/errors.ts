/**
 * Every failure the edge can answer with, in one place (the Powertools idempotency style).
 *
 * The status code is part of the contract with each provider's retry logic:
 * - 4xx means "this request will never be accepted": SNS, SendGrid, Postmark and friends stop retrying
 *   (SNS even counts any 4xx as delivered), so a 4xx must only ever answer a request we reject on purpose.
 * - 5xx means "try again later", and is kept for real transient failures (a store or queue that is down,
 *   a certificate host that timed out).
 * Mailgun treats 406 as "stop retrying": no error here ever maps to 406.
 */
export abstract class WebhookError extends Error {
  abstract readonly status: number;
  /** Stable, machine-readable code. Safe to log and to return: it never contains request data. */
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request is not something we can read: bad JSON, missing fields, wrong shape. */
export class MalformedRequestError extends WebhookError {
  readonly status = 400;
  readonly code = 'malformed_request';
}

/** Signature, credentials or certificate do not check out, or an authentication header is missing. */
export class AuthenticationError extends WebhookError {
  readonly status = 401;
  readonly code = 'authentication_failed';
}

/** Authentic-looking, but outside the accepted time window (stale or from the future). */
export class StaleRequestError extends WebhookError {
  readonly status = 401;
  readonly code = 'stale_request';
}

/** A single-use token (Mailgun) was presented a second time. */
export class ReplayError extends WebhookError {
  readonly status = 409;
  readonly code = 'replayed';
}

/** Authenticated by a sender we do not accept: an SNS topic off the allowlist, a source IP off the allowlist. */
export class ForbiddenSenderError extends WebhookError {
  readonly status = 403;
  readonly code = 'forbidden_sender';
}

/** The body is over the size cap; answered before anything is parsed. */
export class PayloadTooLargeError extends WebhookError {
  readonly status = 413;
  readonly code = 'payload_too_large';
}

/** No such provider, or the provider has no credentials configured: the route is closed, never "accept unsigned". */
export class ProviderNotFoundError extends WebhookError {
  readonly status = 404;
  readonly code = 'provider_not_found';
}

/** Something outside the request failed (a store, a queue, a certificate host): the provider should retry. */
export class TransientError extends WebhookError {
  readonly status = 503;
  readonly code = 'transient_failure';
}

export function isWebhookError(error: unknown): error is WebhookError {
  return error instanceof WebhookError;
}
