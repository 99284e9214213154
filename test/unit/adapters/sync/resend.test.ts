/** The Resend adapter against the Resend fake. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResendSyncTarget } from '../../../../lambdas/adapters/sync/resend.js';
import { SyncRateLimitedError, SyncRefusedError, SyncTransientError } from '../../../../lambdas/core/sync/target.js';
import { type ResendFake, startResendFake } from '../../../fakes/providers/resend.js';
import { listAll, rejection } from './support.js';

const NOW = 1_800_000_000_000;
let fake: ResendFake;
let target: ResendSyncTarget;

beforeEach(async () => {
  fake = await startResendFake();
  target = new ResendSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url }, { now: () => NOW, timeoutMs: 2000 });
});
afterEach(() => fake.close());

describe('Resend sync target', () => {
  it('adds a global suppression to the team list, twice harmlessly', async () => {
    expect(await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' })).toEqual({
      lists: ['suppressions'],
      providerReason: 'manual',
    });
    await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' });
    expect(fake.entries().map((e) => e.email)).toEqual(['c@example.com']);
    expect(JSON.parse(fake.calls[0]!.body)).toEqual({ email: 'c@example.com' });
  });

  it('removes when asked, a second removal (404) is already gone, and other lists are not touched', async () => {
    await target.apply({ op: 'suppress', email: 'x@example.com', reason: 'manual' });
    expect(await target.apply({ op: 'unsuppress', email: 'x@example.com', lists: [] })).toEqual({ lists: [] });
    expect(fake.entries()).toHaveLength(1);
    expect(await target.apply({ op: 'unsuppress', email: 'x@example.com', lists: ['suppressions'] })).toEqual({
      lists: ['suppressions'],
    });
    expect(await target.apply({ op: 'unsuppress', email: 'x@example.com', lists: ['suppressions'] })).toEqual({
      lists: ['suppressions'],
    });
    expect(fake.entries()).toEqual([]);
  });

  it('holds no topic scope', async () => {
    expect(target.handlesScope('sendgrid:group:7')).toBe(false);
    expect(await target.apply({ op: 'unsuppressScope', email: 'x@example.com', scope: 'sendgrid:group:7' })).toEqual({
      lists: [],
    });
  });

  it('lists with limit/after cursor paging while has_more', async () => {
    for (let i = 0; i < 5; i += 1)
      fake.seed(`s${i}@example.com`, i === 0 ? 'bounce' : 'manual', Date.UTC(2026, 2, 1 + i));
    const small = new ResendSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url }, { pageLimit: 2 });
    const { entries, pages } = await listAll(small);
    expect(pages).toBe(3);
    expect(fake.calls.filter((c) => c.query.includes('after='))).toHaveLength(2);
    expect(entries.map((e) => e.email).sort()).toEqual([
      's0@example.com',
      's1@example.com',
      's2@example.com',
      's3@example.com',
      's4@example.com',
    ]);
    expect(entries.find((e) => e.email === 's0@example.com')).toEqual({
      email: 's0@example.com',
      list: 'suppressions',
      reason: 'bounce',
      date: Date.UTC(2026, 2, 1),
    });
  });

  it('429 with retry-after pauses until then; with only ratelimit-reset (seconds from now), until the reset', async () => {
    fake.rateLimit(1, { 'retry-after': '2', 'ratelimit-reset': '9' });
    expect(
      (
        (await rejection(
          target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }),
        )) as SyncRateLimitedError
      ).retryAtMs,
    ).toBe(NOW + 2000);
    fake.rateLimit(1, { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '9' });
    const error = await rejection(target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRateLimitedError);
    expect((error as SyncRateLimitedError).retryAtMs).toBe(NOW + 9000);
    expect(fake.entries()).toEqual([]);
  });

  it('5xx and a closed port are transient', async () => {
    fake.script({ status: 500, body: { statusCode: 500, name: 'internal_server_error', message: 'x' } });
    expect(
      await rejection(target.apply({ op: 'suppress', email: 'd@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
    await fake.down(5000, 'refused');
    expect(
      await rejection(target.apply({ op: 'suppress', email: 'd@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
  });

  it('a wrong key is SyncRefusedError 403 invalid_api_key, naming neither the key nor the address', async () => {
    const wrong = new ResendSyncTarget({ apiKey: 're_wrong_789', apiUrl: fake.url });
    const error = await rejection(wrong.apply({ op: 'suppress', email: 'who@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(403);
    expect(error.message).toBe('resend POST /suppressions: HTTP 403 (invalid_api_key: API key is invalid)');
  });
});
