/** Resend's batched adds (applyMany) against the Resend fake: one POST /suppressions/batch/add, each entry as `apply` answers it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResendSyncTarget } from '../../../../lambdas/adapters/sync/resend.js';
import {
  type SyncOperation,
  type SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import { type ResendFake, startResendFake } from '../../../fakes/providers/resend.js';
import { addresses, appliedAlone, post } from './batch-support.js';
import { rejection } from './support.js';

const NOW = 1_800_000_000_000;
const build = (f: ResendFake) =>
  new ResendSyncTarget({ apiKey: f.apiKey, apiUrl: f.url }, { now: () => NOW, timeoutMs: 2000 });
let fake: ResendFake;
let target: ResendSyncTarget;

beforeEach(async () => {
  fake = await startResendFake();
  target = build(fake);
});
afterEach(() => fake.close());

const suppress = (email: string, reason: 'complaint' | 'hard_bounce' | 'unsubscribe' = 'complaint'): SyncOperation => ({
  op: 'suppress',
  email,
  reason,
});
const held = (f: ResendFake = fake) =>
  f
    .entries()
    .map((e) => `${e.email} ${e.origin}`)
    .sort();

describe('Resend batched adds', () => {
  it('global suppressions of every reason land in ONE batch/add, each entry as apply answers it alone', async () => {
    const batch = [
      suppress('a@example.com', 'complaint'),
      suppress('b@example.com', 'hard_bounce'),
      suppress('c@example.com', 'unsubscribe'),
    ];
    const outcomes = await target.applyMany(batch);
    expect(fake.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual(['POST /suppressions/batch/add 200']);
    expect(JSON.parse(fake.calls[0]!.body)).toEqual({ emails: ['a@example.com', 'b@example.com', 'c@example.com'] });
    expect(fake.pushes().map((p) => p.emails)).toEqual([['a@example.com', 'b@example.com', 'c@example.com']]);
    const alone = await appliedAlone(startResendFake, build, batch);
    try {
      expect(outcomes).toEqual(alone.outcomes);
      expect(outcomes[0]).toEqual({ lists: ['suppressions'], providerReason: 'manual' });
      expect(held()).toEqual(held(alone.fake));
    } finally {
      await alone.fake.close();
    }
  });

  it('keys: every suppress shares one; removals and scopes none', () => {
    expect(target.batchKey(suppress('a@example.com', 'complaint'))).toBe('resend:suppressions');
    expect(target.batchKey(suppress('b@example.com', 'unsubscribe'))).toBe('resend:suppressions');
    expect(target.batchKey({ op: 'unsuppress', email: 'a@example.com', lists: ['suppressions'] })).toBeUndefined();
    expect(target.batchKey({ op: 'suppressScope', email: 'a@example.com', scope: 'sendgrid:group:7' })).toBeUndefined();
    expect(
      target.batchKey({ op: 'unsuppressScope', email: 'a@example.com', scope: 'sendgrid:group:7' }),
    ).toBeUndefined();
  });

  it('takes 1 to 100: the fake refuses 101 and none (422, nothing written), applyMany refuses 101 before any call', async () => {
    expect(target.maxBatch).toBe(100);
    const auth = { authorization: `Bearer ${fake.apiKey}` };
    const url = `${fake.url}/suppressions/batch/add`;
    expect(await post(url, auth, { emails: addresses(101) })).toMatchObject({
      status: 422,
      body: { name: 'validation_error' },
    });
    expect((await post(url, auth, { emails: [] })).status).toBe(422);
    expect((await post(url, auth, {})).status).toBe(422);
    expect(fake.entries()).toEqual([]);
    fake.clearCalls();
    expect(await rejection(target.applyMany(addresses(101).map((e) => suppress(e))))).toBeInstanceOf(RangeError);
    expect(fake.calls).toEqual([]);
    await target.applyMany(addresses(100).map((e) => suppress(e)));
    expect(fake.entries()).toHaveLength(100);
  });

  it('an address Resend cannot read refuses the request as a whole: SyncRefusedError, nothing written, no address in it', async () => {
    const error = await rejection(target.applyMany([suppress('ok@example.com'), suppress('not-an-address')]));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(400);
    expect(error.message).toBe(
      'resend POST /suppressions/batch/add: HTTP 400 (validation_error: Invalid `emails` field.)',
    );
    expect(fake.entries()).toEqual([]);
  });

  it('a batch answered 409 is a refusal of the request (it names no address), not "already there"', async () => {
    fake.script({ status: 409, body: { statusCode: 409, name: 'conflict', message: 'conflict' } });
    const error = await rejection(target.applyMany([suppress('a@example.com'), suppress('b@example.com')]));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(409);
  });

  it('429 is SyncRateLimitedError at retry-after (or ratelimit-reset), 5xx SyncTransientError', async () => {
    const batch = [suppress('r1@example.com'), suppress('r2@example.com')];
    fake.rateLimit(1, { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '9' });
    expect(((await rejection(target.applyMany(batch))) as SyncRateLimitedError).retryAtMs).toBe(NOW + 9000);
    fake.rateLimit(1, { 'retry-after': '2', 'ratelimit-reset': '9' });
    expect(((await rejection(target.applyMany(batch))) as SyncRateLimitedError).retryAtMs).toBe(NOW + 2000);
    fake.script({ status: 500, body: { statusCode: 500, name: 'internal_server_error', message: 'x' } });
    expect(await rejection(target.applyMany(batch))).toBeInstanceOf(SyncTransientError);
    expect(fake.entries()).toEqual([]);
  });

  it('the same batch twice leaves the list as once (an address already there answers its entry)', async () => {
    fake.seed('old@example.com', 'bounce');
    const batch = [suppress('i1@example.com'), suppress('old@example.com'), suppress('i1@example.com')];
    await target.applyMany(batch);
    const once = fake.entries();
    await target.applyMany(batch);
    expect(fake.entries()).toEqual(once);
    expect(held()).toEqual(['i1@example.com manual', 'old@example.com bounce']);
    expect(JSON.parse(fake.calls[0]!.body)).toEqual({ emails: ['i1@example.com', 'old@example.com'] });
  });
});
