/**
 * The small rules target.ts sets for every provider: which operations go ahead of the line at the
 * provider's gate (letsMailThrough), and the errors the gate hands back, as the worker logs them
 * (`${error.name}: ${error.message}`).
 */
import { describe, expect, it } from 'vitest';
import {
  letsMailThrough,
  type SyncOperation,
  SyncProviderBacklogError,
  SyncProviderBusyError,
  SyncRateLimitedError,
} from '../../../lambdas/core/sync/target.js';

const EMAIL = 'someone@example.com';

describe('letsMailThrough', () => {
  it('true exactly for a reactivation and a topic opt-in; a suppression waits its turn', () => {
    const operations: SyncOperation[] = [
      { op: 'suppress', email: EMAIL, reason: 'complaint' },
      { op: 'unsuppress', email: EMAIL, lists: ['account'] },
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
      { op: 'unsuppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ];
    expect(operations.map((operation) => [operation.op, letsMailThrough(operation)])).toStrictEqual([
      ['suppress', false],
      ['unsuppress', true],
      ['suppressScope', false],
      ['unsuppressScope', true],
    ]);
  });
});

describe('the gate’s errors', () => {
  const AT = Date.UTC(2026, 11, 2, 1, 2, 3);

  it('SyncProviderBusyError: the provider, the worker’s own rate and the retry time; a rate limit to the worker', () => {
    const error = new SyncProviderBusyError('sendgrid', AT);
    expect(error).toBeInstanceOf(SyncRateLimitedError);
    expect(error.name).toBe('SyncProviderBusyError');
    expect(error.message).toBe('sendgrid is at its rate for this worker: retry at 2026-12-02T01:02:03.000Z');
    expect(String(error)).toBe(
      'SyncProviderBusyError: sendgrid is at its rate for this worker: retry at 2026-12-02T01:02:03.000Z',
    );
    expect([error.provider, error.retryAtMs]).toStrictEqual(['sendgrid', AT]);
  });

  it('SyncProviderBacklogError: the provider, the queue’s delay and when it is due again', () => {
    const error = new SyncProviderBacklogError('postmark', AT);
    expect(error).toBeInstanceOf(SyncProviderBusyError);
    expect(error.name).toBe('SyncProviderBacklogError');
    expect(error.message).toBe(
      "postmark is booked beyond the queue's delay for this worker: due again at 2026-12-02T01:02:03.000Z",
    );
    expect(String(error)).toBe(
      "SyncProviderBacklogError: postmark is booked beyond the queue's delay for this worker: due again at 2026-12-02T01:02:03.000Z",
    );
    expect([error.provider, error.retryAtMs]).toStrictEqual(['postmark', AT]);
  });
});
