/** Postmark's batched adds (applyMany) against the Postmark fake: one POST per stream, each address answered on its own. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostmarkSyncTarget } from '../../../../lambdas/adapters/sync/postmark.js';
import {
  type SyncOperation,
  type SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import { type PostmarkFake, startPostmarkFake } from '../../../fakes/providers/postmark.js';
import { addresses, appliedAlone, post } from './batch-support.js';
import { rejection } from './support.js';

const NOW = 1_800_000_000_000;
const start = () => startPostmarkFake({ streams: ['outbound', 'transactional', 'broadcast'] });
const build = (f: PostmarkFake) =>
  new PostmarkSyncTarget(
    { serverToken: f.serverToken, apiUrl: f.url, streams: ['outbound', 'transactional'], topicStreams: ['broadcast'] },
    { now: () => NOW, timeoutMs: 2000 },
  );
let fake: PostmarkFake;
let target: PostmarkSyncTarget;

beforeEach(async () => {
  fake = await start();
  target = build(fake);
});
afterEach(() => fake.close());

const emails = (stream: string, f: PostmarkFake = fake) =>
  f
    .stream(stream)
    .map((e) => e.email)
    .sort();
const suppress = (email: string, reason: 'complaint' | 'manual' = 'complaint'): SyncOperation => ({
  op: 'suppress',
  email,
  reason,
});
const toStream = (email: string, stream = 'broadcast'): SyncOperation => ({
  op: 'suppressScope',
  email,
  scope: `postmark:stream:${stream}`,
});

async function sameAsAlone(batch: readonly SyncOperation[], outcomes: unknown): Promise<void> {
  const alone = await appliedAlone(start, build, batch);
  try {
    expect(outcomes).toEqual(alone.outcomes);
    for (const stream of ['outbound', 'transactional', 'broadcast'])
      expect(emails(stream)).toEqual(emails(stream, alone.fake));
  } finally {
    await alone.fake.close();
  }
}

describe('Postmark batched adds', () => {
  it('global suppressions land in ONE POST per configured stream, each entry as apply answers it alone', async () => {
    const batch = [suppress('a@example.com', 'complaint'), suppress('b@example.com', 'manual')];
    const outcomes = await target.applyMany(batch);
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /message-streams/outbound/suppressions',
      'POST /message-streams/transactional/suppressions',
    ]);
    expect(JSON.parse(fake.calls[0]!.body)).toEqual({
      Suppressions: [{ EmailAddress: 'a@example.com' }, { EmailAddress: 'b@example.com' }],
    });
    expect(fake.pushes().map((p) => p.emails)).toEqual([
      ['a@example.com', 'b@example.com'],
      ['a@example.com', 'b@example.com'],
    ]);
    expect(emails('broadcast')).toEqual([]);
    await sameAsAlone(batch, outcomes);
  });

  it('a stream-scope batch lands in that stream only, in one POST', async () => {
    const batch = [toStream('t1@example.com'), toStream('t2@example.com')];
    const outcomes = await target.applyMany(batch);
    expect(fake.calls.map((c) => c.path)).toEqual(['/message-streams/broadcast/suppressions']);
    expect(outcomes).toEqual([{ lists: ['stream:broadcast'] }, { lists: ['stream:broadcast'] }]);
    expect(emails('outbound')).toEqual([]);
    await sameAsAlone(batch, outcomes);
  });

  it('an address Postmark answers Failed is refused in its own entry only, as apply refuses it (never thrown)', async () => {
    const batch = [suppress('ok1@example.com'), suppress('not-an-address'), suppress('ok2@example.com')];
    const outcomes = await target.applyMany(batch);
    expect(fake.calls).toHaveLength(2);
    expect(outcomes[0]).toEqual({
      lists: ['stream:outbound', 'stream:transactional'],
      providerReason: 'ManualSuppression',
    });
    expect(outcomes[1]).toEqual({
      lists: [],
      refused: [
        { list: 'stream:outbound', why: 'An invalid email address was provided.' },
        { list: 'stream:transactional', why: 'An invalid email address was provided.' },
      ],
    });
    expect(outcomes[2]).toEqual(outcomes[0]);
    expect(emails('outbound')).toEqual(['ok1@example.com', 'ok2@example.com']);
    expect(fake.pushes()[0]!.emails).toEqual(['ok1@example.com', 'ok2@example.com']);
    await sameAsAlone(batch, outcomes);
  });

  it('keys: every suppress shares one, each stream its own, removals and foreign scopes none', () => {
    expect(target.batchKey(suppress('a@example.com', 'complaint'))).toBe('postmark:global');
    expect(target.batchKey(suppress('b@example.com', 'manual'))).toBe('postmark:global');
    expect(target.batchKey(toStream('a@example.com', 'broadcast'))).toBe('postmark:stream:broadcast');
    expect(target.batchKey(toStream('a@example.com', 'outbound'))).toBe('postmark:stream:outbound');
    expect(target.batchKey({ op: 'suppressScope', email: 'a@example.com', scope: 'sendgrid:group:7' })).toBeUndefined();
    expect(target.batchKey({ op: 'unsuppress', email: 'a@example.com', lists: ['stream:outbound'] })).toBeUndefined();
    expect(
      target.batchKey({ op: 'unsuppressScope', email: 'a@example.com', scope: 'postmark:stream:broadcast' }),
    ).toBeUndefined();
  });

  it('takes up to 50 a request: the fake refuses 51 (422, nothing written), applyMany refuses 51 before any call', async () => {
    expect(target.maxBatch).toBe(50);
    const headers = { 'x-postmark-server-token': fake.serverToken };
    const over = await post(`${fake.url}/message-streams/broadcast/suppressions`, headers, {
      Suppressions: addresses(51).map((EmailAddress) => ({ EmailAddress })),
    });
    expect(over.status).toBe(422);
    expect(emails('broadcast')).toEqual([]);
    fake.clearCalls();
    expect(await rejection(target.applyMany(addresses(51).map((e) => toStream(e))))).toBeInstanceOf(RangeError);
    expect(fake.calls).toEqual([]);
    await target.applyMany(addresses(50).map((e) => toStream(e)));
    expect(emails('broadcast')).toHaveLength(50);
  });

  it('a stream Postmark does not have refuses the request as a whole: SyncRefusedError 422', async () => {
    const error = await rejection(
      target.applyMany([toStream('n1@example.com', 'nope'), toStream('n2@example.com', 'nope')]),
    );
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(422);
    expect(error.message).not.toContain('n1@example.com');
  });

  it('429 is SyncRateLimitedError at Retry-After, 5xx SyncTransientError', async () => {
    const batch = [suppress('r1@example.com'), suppress('r2@example.com')];
    fake.rateLimit(1, { 'retry-after': '5' });
    expect(((await rejection(target.applyMany(batch))) as SyncRateLimitedError).retryAtMs).toBe(NOW + 5000);
    fake.script({ status: 500, body: { ErrorCode: 100, Message: 'Maintenance' } });
    expect(await rejection(target.applyMany(batch))).toBeInstanceOf(SyncTransientError);
    expect(emails('outbound')).toEqual([]);
  });

  it('the same batch twice leaves the streams as once', async () => {
    const batch = [suppress('i1@example.com'), suppress('i2@example.com')];
    const first = await target.applyMany(batch);
    const once = ['outbound', 'transactional', 'broadcast'].map((s) => fake.stream(s));
    expect(await target.applyMany(batch)).toEqual(first);
    expect(['outbound', 'transactional', 'broadcast'].map((s) => fake.stream(s))).toEqual(once);
    expect(emails('outbound')).toEqual(['i1@example.com', 'i2@example.com']);
  });
});
