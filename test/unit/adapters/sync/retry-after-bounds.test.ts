/**
 * A 429's wait is bounded, whatever the provider's header says. Without a bound, a Retry-After of years
 * pauses the provider for every worker (the shared pause only moves forward) and the change is never
 * pushed nor dead-lettered; past JavaScript's last Date (8.64e15 ms) the rate-limit error cannot even be
 * built, and the RangeError that escapes instead is counted toward the horizon like a 5xx.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../../../lambdas/adapters/sync/http.js';
import { MailgunSyncTarget } from '../../../../lambdas/adapters/sync/mailgun.js';
import { SesSyncTarget } from '../../../../lambdas/adapters/sync/ses.js';
import { SyncRateLimitedError } from '../../../../lambdas/core/sync/target.js';
import { type MailgunFake, startMailgunFake } from '../../../fakes/providers/mailgun.js';
import { startSesFake } from '../../../fakes/providers/ses.js';
import { rejection } from './support.js';

const NOW = 1_800_000_000_000;
const DOMAINS = ['mg.example.com'];
let fake: MailgunFake;
let target: MailgunSyncTarget;

beforeEach(async () => {
  fake = await startMailgunFake({ domains: DOMAINS });
  target = new MailgunSyncTarget(
    { apiKey: fake.apiKey, apiUrl: fake.url, domains: DOMAINS },
    { now: () => NOW, timeoutMs: 2000 },
  );
});
afterEach(() => fake.close());

const suppress = () => rejection(target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }));

describe('a 429 names a wait far away', () => {
  it('delay-seconds past the last Date: still a rate limit (waiting), bounded', async () => {
    fake.rateLimit(1, { 'retry-after': '99999999999999' });
    const error = await suppress();
    expect(error).toBeInstanceOf(SyncRateLimitedError);
    expect((error as SyncRateLimitedError).retryAtMs).toBe(NOW + MAX_RATE_LIMIT_PAUSE_MS);
  });

  it('years ahead, as delay-seconds or an HTTP-date: bounded', async () => {
    fake.rateLimit(1, { 'retry-after': String(10 * 365 * 86_400) });
    expect(((await suppress()) as SyncRateLimitedError).retryAtMs).toBe(NOW + MAX_RATE_LIMIT_PAUSE_MS);
    fake.rateLimit(1, { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' });
    expect(((await suppress()) as SyncRateLimitedError).retryAtMs).toBe(NOW + MAX_RATE_LIMIT_PAUSE_MS);
  });

  it('a wait inside the bound, or already past, is kept as the provider named it', async () => {
    fake.rateLimit(1, { 'retry-after': '120' });
    expect(((await suppress()) as SyncRateLimitedError).retryAtMs).toBe(NOW + 120_000);
    fake.rateLimit(1, { 'retry-after': new Date(NOW - 60_000).toUTCString() });
    expect(((await suppress()) as SyncRateLimitedError).retryAtMs).toBe(NOW);
  });
});

describe('SES (its own 429 path, through the SDK)', () => {
  it('a Retry-After past the last Date: a bounded rate limit, not a RangeError', async () => {
    const ses = await startSesFake();
    try {
      const sesTarget = new SesSyncTarget(
        { region: ses.region, endpoint: ses.url, credentials: ses.credentials },
        { now: () => NOW, timeoutMs: 2000 },
      );
      ses.rateLimit(1, { 'retry-after': '99999999999999' });
      const error = await rejection(sesTarget.apply({ op: 'suppress', email: 't@example.com', reason: 'complaint' }));
      expect(error).toBeInstanceOf(SyncRateLimitedError);
      expect((error as SyncRateLimitedError).retryAtMs).toBe(NOW + MAX_RATE_LIMIT_PAUSE_MS);
    } finally {
      await ses.close();
    }
  });
});
