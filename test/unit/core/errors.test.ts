/** Each refusal's status and machine-readable code: both go back to the provider and into the logs, so both are contract. */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ForbiddenSenderError,
  isWebhookError,
  MalformedRequestError,
  PayloadTooLargeError,
  ProviderNotFoundError,
  ReplayError,
  StaleRequestError,
  TransientError,
} from '../../../lambdas/core/errors.js';

describe('webhook errors', () => {
  it.each([
    [MalformedRequestError, 400, 'malformed_request'],
    [AuthenticationError, 401, 'authentication_failed'],
    [StaleRequestError, 401, 'stale_request'],
    [ReplayError, 409, 'replayed'],
    [ForbiddenSenderError, 403, 'forbidden_sender'],
    [PayloadTooLargeError, 413, 'payload_too_large'],
    [ProviderNotFoundError, 404, 'provider_not_found'],
    [TransientError, 503, 'transient_failure'],
  ])('%o answers %d with code %s, named after its class, keeping message and cause', (ErrorClass, status, code) => {
    const cause = new Error('root');
    const error = new ErrorClass('what happened', { cause });
    expect({
      status: error.status,
      code: error.code,
      name: error.name,
      message: error.message,
      cause: error.cause,
    }).toEqual({
      status,
      code,
      name: ErrorClass.name,
      message: 'what happened',
      cause,
    });
    expect(isWebhookError(error)).toBe(true);
  });

  it('a plain Error is not a webhook error (it answers 5xx)', () => {
    expect(isWebhookError(new Error('x'))).toBe(false);
    expect(isWebhookError('malformed_request')).toBe(false);
  });
});
