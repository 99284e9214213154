/** The SES adapter, through the real @aws-sdk/client-sesv2 client, against the SESv2 fake. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SesSyncTarget } from '../../../../lambdas/adapters/sync/ses.js';
import { SyncRateLimitedError, SyncRefusedError, SyncTransientError } from '../../../../lambdas/core/sync/target.js';
import { type SesFake, startSesFake } from '../../../fakes/providers/ses.js';
import { listAll, rejection } from './support.js';

const NOW = 1_800_000_000_000;
let fake: SesFake;
let target: SesSyncTarget;

beforeAll(async () => {
  fake = await startSesFake();
  target = new SesSyncTarget(
    { region: fake.region, endpoint: fake.url, credentials: fake.credentials },
    { now: () => NOW, timeoutMs: 2000 },
  );
});
afterAll(() => fake.close());

function clear() {
  // The fake has no wipe route (SES has none); delete through the adapter itself.
  return Promise.all(fake.entries().map((e) => target.apply({ op: 'unsuppress', email: e.email, lists: ['account'] })));
}

describe('SES sync target', () => {
  it('stores a complaint as COMPLAINT, and pushing it twice leaves one entry', async () => {
    await clear();
    const first = await target.apply({ op: 'suppress', email: 'c1@example.com', reason: 'complaint' });
    const second = await target.apply({ op: 'suppress', email: 'c1@example.com', reason: 'complaint' });
    expect(first).toEqual({ lists: ['account'], providerReason: 'COMPLAINT' });
    expect(second).toEqual(first);
    expect(fake.entries().map((e) => [e.email, e.reason])).toEqual([['c1@example.com', 'COMPLAINT']]);
  });

  it.each(['hard_bounce', 'unsubscribe', 'soft_bounce_limit', 'manual'] as const)(
    'stores %s as BOUNCE',
    async (reason) => {
      await clear();
      const outcome = await target.apply({ op: 'suppress', email: `${reason}@example.com`, reason });
      expect(outcome).toEqual({ lists: ['account'], providerReason: 'BOUNCE' });
      expect(fake.get(`${reason}@example.com`)?.reason).toBe('BOUNCE');
    },
  );

  it('removes only when asked for the account list, and a second removal still succeeds', async () => {
    await clear();
    await target.apply({ op: 'suppress', email: 'r@example.com', reason: 'manual' });
    expect(await target.apply({ op: 'unsuppress', email: 'r@example.com', lists: [] })).toEqual({ lists: [] });
    expect(fake.get('r@example.com')).toBeDefined();
    expect(await target.apply({ op: 'unsuppress', email: 'r@example.com', lists: ['account'] })).toEqual({
      lists: ['account'],
    });
    expect(fake.get('r@example.com')).toBeUndefined();
    expect(await target.apply({ op: 'unsuppress', email: 'r@example.com', lists: ['account'] })).toEqual({
      lists: ['account'],
    });
  });

  it('holds no topic scope', async () => {
    expect(target.handlesScope('sendgrid:group:7')).toBe(false);
    expect(
      await target.apply({ op: 'suppressScope', email: 's@example.com', scope: 'postmark:stream:broadcast' }),
    ).toEqual({ lists: [] });
    expect(fake.get('s@example.com')).toBeUndefined();
  });

  it('lists every entry page by page with NextToken, with reason and date', async () => {
    await clear();
    for (let i = 0; i < 5; i += 1) fake.seed(`p${i}@example.com`, i % 2 ? 'COMPLAINT' : 'BOUNCE', NOW - i * 1000);
    const small = new SesSyncTarget(
      { region: fake.region, endpoint: fake.url, credentials: fake.credentials },
      { pageSize: 2 },
    );
    fake.clearCalls();
    const { entries, pages } = await listAll(small);
    expect(pages).toBe(3);
    expect(fake.calls.filter((c) => c.query.includes('NextToken'))).toHaveLength(2);
    expect(entries).toHaveLength(5);
    expect(entries.find((e) => e.email === 'p1@example.com')).toEqual({
      email: 'p1@example.com',
      list: 'account',
      reason: 'COMPLAINT',
      date: NOW - 1000,
    });
  });

  it('turns 429 TooManyRequestsException into SyncRateLimitedError at the Retry-After time', async () => {
    fake.rateLimit(1, { 'retry-after': '2' });
    const error = await rejection(target.apply({ op: 'suppress', email: 't@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRateLimitedError);
    expect((error as SyncRateLimitedError).retryAtMs).toBe(NOW + 2000);
  });

  it('without Retry-After pauses for the default second (SES sends no reset header), and makes one call only', async () => {
    fake.clearCalls();
    fake.rateLimit(1, {});
    const error = await rejection(target.apply({ op: 'suppress', email: 't@example.com', reason: 'complaint' }));
    expect((error as SyncRateLimitedError).retryAtMs).toBe(NOW + 1000);
    expect(fake.calls).toHaveLength(1);
  });

  it('turns a 5xx and a closed port into SyncTransientError', async () => {
    fake.script({ status: 500, headers: { 'x-amzn-errortype': 'InternalFailure' }, body: { message: 'boom' } });
    expect(
      await rejection(target.apply({ op: 'suppress', email: 'u@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
    await fake.down(300, 'refused');
    expect(
      await rejection(target.apply({ op: 'suppress', email: 'u@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
    await new Promise((r) => setTimeout(r, 400));
    expect(await target.apply({ op: 'suppress', email: 'u@example.com', reason: 'complaint' })).toEqual({
      lists: ['account'],
      providerReason: 'COMPLAINT',
    });
  });

  it('turns unknown credentials into SyncRefusedError 403 that names neither the key nor the address', async () => {
    const wrong = new SesSyncTarget({
      region: fake.region,
      endpoint: fake.url,
      credentials: { accessKeyId: 'AKIDWRONGKEY', secretAccessKey: 'wrong-secret-value' },
    });
    const error = await rejection(
      wrong.apply({ op: 'suppress', email: 'secret.person@example.com', reason: 'complaint' }),
    );
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(403);
    expect(error.message).toContain('UnrecognizedClientException');
    expect(error.message).not.toContain('AKIDWRONGKEY');
    expect(error.message).not.toContain('wrong-secret-value');
    expect(error.message).not.toContain('secret.person@example.com');
  });

  it('refuses an address SES refuses (400 BadRequestException) as permanent', async () => {
    const error = await rejection(target.apply({ op: 'suppress', email: 'not-an-address', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(400);
  });
});
