/** Mailgun's batched adds (applyMany) against the Mailgun fake: one JSON POST per domain, each entry as `apply` answers it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailgunSyncTarget } from '../../../../lambdas/adapters/sync/mailgun.js';
import {
  type SyncOperation,
  type SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import { type MailgunFake, type MailgunList, startMailgunFake } from '../../../fakes/providers/mailgun.js';
import { addresses, appliedAlone, post } from './batch-support.js';
import { rejection } from './support.js';

const NOW = 1_800_000_000_000;
const DOMAINS = ['mg.example.com', 'mg2.example.com'];
const start = () => startMailgunFake({ domains: DOMAINS });
const build = (f: MailgunFake) =>
  new MailgunSyncTarget({ apiKey: f.apiKey, apiUrl: f.url, domains: DOMAINS }, { now: () => NOW, timeoutMs: 2000 });
let fake: MailgunFake;
let target: MailgunSyncTarget;

beforeEach(async () => {
  fake = await start();
  target = build(fake);
});
afterEach(() => fake.close());

type Reason = 'complaint' | 'hard_bounce' | 'unsubscribe' | 'soft_bounce_limit' | 'manual';
const suppress = (email: string, reason: Reason = 'unsubscribe'): SyncOperation => ({ op: 'suppress', email, reason });
/** Every list of every domain, as the fake holds it (records included). */
const everything = (f: MailgunFake = fake) =>
  DOMAINS.flatMap((d) => (['bounces', 'complaints', 'unsubscribes'] as MailgunList[]).map((l) => f.list(d, l)));

describe('Mailgun batched adds', () => {
  it('one list’s suppressions land in ONE POST per domain, each entry as apply answers it alone', async () => {
    for (const [reason, batch] of [
      [
        'unsubscribe',
        [
          suppress('u1@example.com', 'unsubscribe'),
          suppress('u2@example.com', 'manual'),
          suppress('u3@example.com', 'soft_bounce_limit'),
        ],
      ],
      ['hard_bounce', [suppress('b1@example.com', 'hard_bounce'), suppress('b2@example.com', 'hard_bounce')]],
      ['complaint', [suppress('c1@example.com', 'complaint'), suppress('c2@example.com', 'complaint')]],
    ] as const) {
      fake.clearCalls();
      const outcomes = await target.applyMany(batch);
      const list = reason === 'unsubscribe' ? 'unsubscribes' : reason === 'hard_bounce' ? 'bounces' : 'complaints';
      expect(fake.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual(
        DOMAINS.map((d) => `POST /v3/${d}/${list} 200`),
      );
      expect(fake.pushes().map((p) => p.emails)).toEqual(DOMAINS.map(() => batch.map((o) => o.email)));
      const alone = await appliedAlone(start, build, batch);
      try {
        expect(outcomes).toEqual(alone.outcomes);
        expect(outcomes[0]).toEqual({ lists: DOMAINS.map((d) => `${list}@${d}`) });
      } finally {
        await alone.fake.close();
      }
    }
    // The records are the ones apply writes: bounce code and text, unsubscribe tag *, Ratchet's time.
    const alone = await appliedAlone(start, build, [
      suppress('u1@example.com', 'unsubscribe'),
      suppress('u2@example.com', 'manual'),
      suppress('u3@example.com', 'soft_bounce_limit'),
      suppress('b1@example.com', 'hard_bounce'),
      suppress('b2@example.com', 'hard_bounce'),
      suppress('c1@example.com', 'complaint'),
      suppress('c2@example.com', 'complaint'),
    ]);
    try {
      expect(everything()).toEqual(everything(alone.fake));
      expect(fake.list('mg2.example.com', 'bounces')[0]).toMatchObject({
        code: '550',
        createdAt: Math.floor(NOW / 1000) * 1000,
      });
    } finally {
      await alone.fake.close();
    }
  });

  it('keys: one per list the reason picks, never shared across lists; removals none', () => {
    expect(target.batchKey(suppress('a@example.com', 'complaint'))).toBe('mailgun:complaints');
    expect(target.batchKey(suppress('a@example.com', 'hard_bounce'))).toBe('mailgun:bounces');
    for (const reason of ['unsubscribe', 'manual', 'soft_bounce_limit'] as const)
      expect(target.batchKey(suppress('a@example.com', reason))).toBe('mailgun:unsubscribes');
    expect(
      target.batchKey({ op: 'unsuppress', email: 'a@example.com', lists: ['bounces@mg.example.com'] }),
    ).toBeUndefined();
    expect(target.batchKey({ op: 'suppressScope', email: 'a@example.com', scope: 'sendgrid:group:7' })).toBeUndefined();
    expect(
      target.batchKey({ op: 'unsuppressScope', email: 'a@example.com', scope: 'sendgrid:group:7' }),
    ).toBeUndefined();
  });

  it('takes up to 1000 records a POST: the fake refuses 1001 (400, nothing written), applyMany refuses 1001 before any call', async () => {
    expect(target.maxBatch).toBe(1000);
    const auth = { authorization: `Basic ${Buffer.from(`api:${fake.apiKey}`).toString('base64')}` };
    const over = await post(
      `${fake.url}/v3/mg.example.com/unsubscribes`,
      auth,
      addresses(1001).map((address) => ({ address, tags: ['*'] })),
    );
    expect(over.status).toBe(400);
    expect((await post(`${fake.url}/v3/mg.example.com/unsubscribes`, auth, [])).status).toBe(400);
    expect(fake.list('mg.example.com', 'unsubscribes')).toEqual([]);
    fake.clearCalls();
    expect(await rejection(target.applyMany(addresses(1001).map((e) => suppress(e))))).toBeInstanceOf(RangeError);
    expect(
      await rejection(target.applyMany([suppress('a@example.com', 'complaint'), suppress('b@example.com')])),
    ).toBeInstanceOf(RangeError);
    expect(fake.calls).toEqual([]);
    await target.applyMany(addresses(1000).map((e) => suppress(e)));
    expect(fake.list('mg2.example.com', 'unsubscribes')).toHaveLength(1000);
  });

  it('an address Mailgun cannot read refuses the request as a whole: SyncRefusedError 400, nothing written', async () => {
    const error = await rejection(target.applyMany([suppress('ok@example.com'), suppress('not-an-address')]));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(400);
    expect(error.message).not.toContain('ok@example.com');
    expect(everything().flat()).toEqual([]);
  });

  it('429 is SyncRateLimitedError at Retry-After, 5xx SyncTransientError', async () => {
    const batch = [suppress('r1@example.com'), suppress('r2@example.com')];
    fake.rateLimit(1, { 'retry-after': '4' });
    expect(((await rejection(target.applyMany(batch))) as SyncRateLimitedError).retryAtMs).toBe(NOW + 4000);
    fake.script({ status: 503, body: { message: 'Service Unavailable' } });
    expect(await rejection(target.applyMany(batch))).toBeInstanceOf(SyncTransientError);
    expect(everything().flat()).toEqual([]);
  });

  it('the same batch twice leaves the lists as once', async () => {
    const batch = [suppress('i1@example.com', 'hard_bounce'), suppress('i2@example.com', 'hard_bounce')];
    await target.applyMany(batch);
    const once = everything();
    await target.applyMany(batch);
    expect(everything()).toEqual(once);
    expect(once.flat()).toHaveLength(4);
  });
});
