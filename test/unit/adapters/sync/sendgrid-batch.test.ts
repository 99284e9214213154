/** SendGrid's batched adds (applyMany) against the SendGrid fake: one POST, each entry as `apply` answers it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SendGridSyncTarget } from '../../../../lambdas/adapters/sync/sendgrid.js';
import {
  type SyncOperation,
  type SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import { type SendGridFake, startSendGridFake } from '../../../fakes/providers/sendgrid.js';
import { addresses, appliedAlone, post } from './batch-support.js';
import { rejection } from './support.js';

const NOW = 1_800_000_000_000;
let fake: SendGridFake;
let target: SendGridSyncTarget;
const build = (f: SendGridFake) =>
  new SendGridSyncTarget({ apiKey: f.apiKey, apiUrl: f.url }, { now: () => NOW, timeoutMs: 2000 });

beforeEach(async () => {
  fake = await startSendGridFake();
  target = build(fake);
});
afterEach(() => fake.close());

const globals = (f: SendGridFake = fake) =>
  f
    .list('unsubscribes')
    .map((i) => i.email)
    .sort();
const suppress = (email: string, reason: 'complaint' | 'unsubscribe' | 'hard_bounce' = 'complaint'): SyncOperation => ({
  op: 'suppress',
  email,
  reason,
});
const toGroup = (email: string, group = 7): SyncOperation => ({
  op: 'suppressScope',
  email,
  scope: `sendgrid:group:${group}`,
});

describe('SendGrid batched adds', () => {
  it('global suppressions of every reason land in ONE POST, each entry as apply answers it alone', async () => {
    const batch = [
      suppress('a@example.com', 'complaint'),
      suppress('b@example.com', 'unsubscribe'),
      suppress('c@example.com', 'hard_bounce'),
    ];
    const outcomes = await target.applyMany(batch);
    expect(fake.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'POST /v3/asm/suppressions/global 201',
    ]);
    expect(fake.pushes().map((p) => p.emails)).toEqual([['a@example.com', 'b@example.com', 'c@example.com']]);
    const alone = await appliedAlone(startSendGridFake, build, batch);
    try {
      expect(outcomes).toEqual(alone.outcomes);
      expect(outcomes[1]).toEqual({ lists: ['global_unsubscribes'] });
      expect(globals()).toEqual(globals(alone.fake));
    } finally {
      await alone.fake.close();
    }
  });

  it('a group batch lands in that group only, in one POST, each entry as apply answers it', async () => {
    const batch = [toGroup('g1@example.com'), toGroup('g2@example.com')];
    const outcomes = await target.applyMany(batch);
    // The group is checked first (a POST into a missing group would go global), once for the batch.
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /v3/asm/groups',
      'POST /v3/asm/groups/7/suppressions',
    ]);
    expect(fake.group(7).sort()).toEqual(['g1@example.com', 'g2@example.com']);
    expect(fake.group(8)).toEqual([]);
    expect(globals()).toEqual([]);
    const alone = await appliedAlone(startSendGridFake, build, batch);
    try {
      expect(outcomes).toEqual(alone.outcomes);
      expect(outcomes).toEqual([{ lists: ['group:7'] }, { lists: ['group:7'] }]);
    } finally {
      await alone.fake.close();
    }
  });

  it('keys: every suppress shares one, each group its own, removals and foreign scopes none', () => {
    expect(target.batchKey(suppress('a@example.com', 'complaint'))).toBe('sendgrid:global');
    expect(target.batchKey(suppress('b@example.com', 'unsubscribe'))).toBe('sendgrid:global');
    expect(target.batchKey(toGroup('a@example.com', 7))).toBe('sendgrid:group:7');
    expect(target.batchKey(toGroup('a@example.com', 8))).toBe('sendgrid:group:8');
    expect(
      target.batchKey({ op: 'suppressScope', email: 'a@example.com', scope: 'postmark:stream:x' }),
    ).toBeUndefined();
    expect(
      target.batchKey({ op: 'unsuppress', email: 'a@example.com', lists: ['global_unsubscribes'] }),
    ).toBeUndefined();
    expect(
      target.batchKey({ op: 'unsuppressScope', email: 'a@example.com', scope: 'sendgrid:group:7' }),
    ).toBeUndefined();
  });

  it('takes at most 500 (no published cap: our own), refuses more or a mixed batch before any call', async () => {
    expect(target.maxBatch).toBe(500);
    await target.applyMany(addresses(500).map((e) => suppress(e)));
    expect(fake.count('unsubscribes')).toBe(500);
    fake.clearCalls();
    expect(await rejection(target.applyMany(addresses(501).map((e) => suppress(e))))).toBeInstanceOf(RangeError);
    expect(await rejection(target.applyMany([suppress('a@example.com'), toGroup('b@example.com')]))).toBeInstanceOf(
      RangeError,
    );
    expect(
      await rejection(target.applyMany([{ op: 'unsuppress', email: 'a@example.com', lists: ['global_unsubscribes'] }])),
    ).toBeInstanceOf(RangeError);
    expect(fake.calls).toEqual([]);
  });

  it('an address SendGrid cannot read refuses the request as a whole: SyncRefusedError, nothing written, no address in it', async () => {
    const error = await rejection(target.applyMany([suppress('ok@example.com'), suppress('not-an-address')]));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(400);
    expect(error.message).not.toContain('ok@example.com');
    expect(globals()).toEqual([]);
    // The fake refuses it as a raw request too, and an empty list.
    const auth = { authorization: `Bearer ${fake.apiKey}` };
    expect((await post(`${fake.url}/v3/asm/suppressions/global`, auth, { recipient_emails: [] })).status).toBe(400);
  });

  it('429 is SyncRateLimitedError at X-RateLimit-Reset, 5xx SyncTransientError', async () => {
    const batch = [suppress('r1@example.com'), suppress('r2@example.com')];
    fake.rateLimit(1, { 'x-ratelimit-limit': '150', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000042' });
    expect(((await rejection(target.applyMany(batch))) as SyncRateLimitedError).retryAtMs).toBe(1_800_000_042_000);
    fake.script({ status: 502, body: 'Bad Gateway' });
    expect(await rejection(target.applyMany(batch))).toBeInstanceOf(SyncTransientError);
    expect(globals()).toEqual([]);
  });

  it('the same batch twice leaves the lists as once', async () => {
    const batch = [suppress('i1@example.com'), suppress('I1@example.com'), suppress('i2@example.com')];
    await target.applyMany(batch);
    const once = fake.list('unsubscribes');
    await target.applyMany(batch);
    expect(fake.list('unsubscribes')).toEqual(once);
    expect(once.map((i) => i.email).sort()).toEqual(['i1@example.com', 'i2@example.com']);
  });
});
