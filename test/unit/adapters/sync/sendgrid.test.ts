/** The SendGrid adapter against the SendGrid fake. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SendGridSyncTarget } from '../../../../lambdas/adapters/sync/sendgrid.js';
import { SyncRateLimitedError, SyncRefusedError, SyncTransientError } from '../../../../lambdas/core/sync/target.js';
import { type SendGridFake, startSendGridFake } from '../../../fakes/providers/sendgrid.js';
import { listAll, rejection } from './support.js';

const NOW = 1_800_000_000_000;
let fake: SendGridFake;
let target: SendGridSyncTarget;

beforeEach(async () => {
  fake = await startSendGridFake();
  target = new SendGridSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url }, { now: () => NOW, timeoutMs: 2000 });
});
afterEach(() => fake.close());

const globals = () => fake.list('unsubscribes').map((i) => i.email);

describe('SendGrid sync target', () => {
  it('pushes every global suppression as a global unsubscribe, twice harmlessly, and says when it differs', async () => {
    const first = await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' });
    await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' });
    expect(first).toEqual({ lists: ['global_unsubscribes'], providerReason: 'global_unsubscribe' });
    expect(globals()).toEqual(['c@example.com']);
    expect(await target.apply({ op: 'suppress', email: 'u@example.com', reason: 'unsubscribe' })).toEqual({
      lists: ['global_unsubscribes'],
    });
    expect(fake.list('bounces')).toEqual([]);
    expect(fake.calls[0]).toMatchObject({ method: 'POST', path: '/v3/asm/suppressions/global', status: 201 });
    expect(JSON.parse(fake.calls[0]!.body)).toEqual({ recipient_emails: ['c@example.com'] });
  });

  it('puts a group scope in that group only, and takes it out again (twice harmlessly)', async () => {
    expect(target.handlesScope('sendgrid:group:7')).toBe(true);
    expect(target.handlesScope('postmark:stream:broadcast')).toBe(false);
    expect(await target.apply({ op: 'suppressScope', email: 'g@example.com', scope: 'sendgrid:group:7' })).toEqual({
      lists: ['group:7'],
    });
    await target.apply({ op: 'suppressScope', email: 'g@example.com', scope: 'sendgrid:group:7' });
    expect(fake.group(7)).toEqual(['g@example.com']);
    expect(fake.group(8)).toEqual([]);
    expect(globals()).toEqual([]);
    expect(await target.apply({ op: 'unsuppressScope', email: 'g@example.com', scope: 'sendgrid:group:7' })).toEqual({
      lists: ['group:7'],
    });
    await target.apply({ op: 'unsuppressScope', email: 'g@example.com', scope: 'sendgrid:group:7' });
    expect(fake.group(7)).toEqual([]);
  });

  it('unsuppress removes from the listed lists only', async () => {
    await target.apply({ op: 'suppress', email: 'x@example.com', reason: 'manual' });
    await target.apply({ op: 'suppressScope', email: 'x@example.com', scope: 'sendgrid:group:7' });
    await target.apply({ op: 'suppressScope', email: 'x@example.com', scope: 'sendgrid:group:8' });
    const outcome = await target.apply({
      op: 'unsuppress',
      email: 'x@example.com',
      lists: ['global_unsubscribes', 'group:8', 'bounces'],
    });
    expect(outcome).toEqual({
      lists: ['global_unsubscribes', 'group:8'],
      refused: [{ list: 'bounces', why: 'not a list Ratchet writes at SendGrid' }],
    });
    expect(globals()).toEqual([]);
    expect(fake.group(7)).toEqual(['x@example.com']);
    expect(fake.group(8)).toEqual([]);
    expect(await target.apply({ op: 'unsuppress', email: 'x@example.com', lists: ['global_unsubscribes'] })).toEqual({
      lists: ['global_unsubscribes'],
    });
  });

  it('lists bounces, blocks (informational), spam reports, invalid emails, global unsubscribes and every group, over several pages', async () => {
    for (let i = 0; i < 5; i += 1)
      fake.seed('bounces', {
        email: `b${i}@example.com`,
        created: 1_700_000_000 + i,
        reason: '550 no such user',
        status: '5.1.1',
      });
    fake.seed('blocks', { email: 'blk@example.com', created: 1_700_000_100, reason: 'greylisted' });
    fake.seed('spam_reports', { email: 'spam@example.com', created: 1_700_000_200 });
    fake.seed('invalid_emails', {
      email: 'inv@example.com',
      created: 1_700_000_300,
      reason: 'Mail domain mentioned in email address is unknown',
    });
    await target.apply({ op: 'suppress', email: 'glob@example.com', reason: 'unsubscribe' });
    await target.apply({ op: 'suppressScope', email: 'grp@example.com', scope: 'sendgrid:group:8' });
    const small = new SendGridSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url }, { pageLimit: 2 });
    fake.clearCalls();
    const { entries } = await listAll(small);
    const bouncePages = fake.calls.filter((c) => c.path === '/v3/suppression/bounces').map((c) => c.query);
    expect(bouncePages).toEqual(['?limit=2&offset=0', '?limit=2&offset=2', '?limit=2&offset=4']);
    expect(entries.filter((e) => e.list === 'bounces')).toHaveLength(5);
    expect(entries.find((e) => e.email === 'b3@example.com')).toEqual({
      email: 'b3@example.com',
      list: 'bounces',
      reason: '550 no such user',
      date: 1_700_000_003_000,
    });
    expect(entries.find((e) => e.list === 'blocks')).toEqual({
      email: 'blk@example.com',
      list: 'blocks',
      reason: 'greylisted',
      date: 1_700_000_100_000,
      informational: true,
    });
    expect(entries.find((e) => e.list === 'spam_reports')?.email).toBe('spam@example.com');
    expect(entries.find((e) => e.list === 'invalid_emails')?.email).toBe('inv@example.com');
    expect(entries.find((e) => e.list === 'global_unsubscribes')?.email).toBe('glob@example.com');
    expect(entries.find((e) => e.list === 'group:8')).toEqual({
      email: 'grp@example.com',
      list: 'group:8',
      scope: 'sendgrid:group:8',
    });
    expect(entries.filter((e) => e.informational)).toHaveLength(1);
  });

  it('429 with Retry-After pauses until then; with only X-RateLimit-Reset (epoch seconds), until the reset', async () => {
    fake.rateLimit(1, { 'retry-after': '3', 'x-ratelimit-reset': '1800000100' });
    const first = await rejection(target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }));
    expect(first).toBeInstanceOf(SyncRateLimitedError);
    expect((first as SyncRateLimitedError).retryAtMs).toBe(NOW + 3000);
    fake.rateLimit(1, { 'x-ratelimit-limit': '150', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000042' });
    const second = await rejection(target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }));
    expect((second as SyncRateLimitedError).retryAtMs).toBe(1_800_000_042_000);
    fake.rateLimit(1, { 'retry-after': new Date(NOW + 7000).toUTCString() });
    const third = await rejection(target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }));
    expect((third as SyncRateLimitedError).retryAtMs).toBe(NOW + 7000);
    expect(globals()).toEqual([]);
  });

  it('turns 5xx, a closed port and a timeout into SyncTransientError', async () => {
    fake.script({ status: 502, body: 'Bad Gateway' });
    expect(
      await rejection(target.apply({ op: 'suppress', email: 't@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
    await fake.down(2000, '503');
    const down = await rejection(target.apply({ op: 'suppress', email: 't@example.com', reason: 'complaint' }));
    expect(down).toBeInstanceOf(SyncTransientError);
    expect(down.message).toBe('sendgrid POST /v3/asm/suppressions/global: HTTP 503 (service unavailable)');
    const slow = new SendGridSyncTarget(
      { apiKey: fake.apiKey, apiUrl: fake.url },
      {
        timeoutMs: 50,
        fetch: (url, init) =>
          new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
      },
    );
    const timeout = await rejection(slow.apply({ op: 'suppress', email: 't@example.com', reason: 'complaint' }));
    expect(timeout).toBeInstanceOf(SyncTransientError);
    expect(timeout.message).toBe('sendgrid POST /v3/asm/suppressions/global: timed out');
  });

  it('a wrong key is SyncRefusedError 401 and the error names neither the key nor the address', async () => {
    const wrong = new SendGridSyncTarget({ apiKey: 'SG.wrong-key-123', apiUrl: fake.url });
    const error = await rejection(
      wrong.apply({ op: 'unsuppress', email: 'private.person@example.com', lists: ['global_unsubscribes'] }),
    );
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(401);
    expect(error.message).toBe(
      'sendgrid DELETE /v3/asm/suppressions/global/{email}: HTTP 401 (authorization required)',
    );
  });

  it('a group SendGrid does not have is refused, not retried', async () => {
    const error = await rejection(
      target.apply({ op: 'suppressScope', email: 'n@example.com', scope: 'sendgrid:group:999' }),
    );
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(404);
  });
});
