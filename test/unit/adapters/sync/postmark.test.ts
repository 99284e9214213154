/** The Postmark adapter against the Postmark fake. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostmarkSyncTarget } from '../../../../lambdas/adapters/sync/postmark.js';
import { SyncRateLimitedError, SyncRefusedError, SyncTransientError } from '../../../../lambdas/core/sync/target.js';
import {
  POSTMARK_SPAM_COMPLAINT_REFUSAL,
  type PostmarkFake,
  startPostmarkFake,
} from '../../../fakes/providers/postmark.js';
import { listAll, rejection } from './support.js';

const NOW = 1_800_000_000_000;
let fake: PostmarkFake;
let target: PostmarkSyncTarget;

beforeEach(async () => {
  fake = await startPostmarkFake({ streams: ['outbound', 'transactional', 'broadcast'] });
  target = new PostmarkSyncTarget(
    {
      serverToken: fake.serverToken,
      apiUrl: fake.url,
      streams: ['outbound', 'transactional'],
      topicStreams: ['broadcast'],
    },
    { now: () => NOW, timeoutMs: 2000 },
  );
});
afterEach(() => fake.close());

const emails = (stream: string) => fake.stream(stream).map((e) => e.email);

describe('Postmark sync target', () => {
  it('puts a global suppression in every configured stream (and not the topic stream), twice harmlessly', async () => {
    const outcome = await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' });
    await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' });
    expect(outcome).toEqual({
      lists: ['stream:outbound', 'stream:transactional'],
      providerReason: 'ManualSuppression',
    });
    expect(emails('outbound')).toEqual(['c@example.com']);
    expect(emails('transactional')).toEqual(['c@example.com']);
    expect(emails('broadcast')).toEqual([]);
    expect(JSON.parse(fake.calls[0]!.body)).toEqual({ Suppressions: [{ EmailAddress: 'c@example.com' }] });
  });

  it('puts a stream scope in that stream only, and an opt-in takes it out', async () => {
    expect(target.handlesScope('postmark:stream:broadcast')).toBe(true);
    expect(target.handlesScope('sendgrid:group:7')).toBe(false);
    expect(
      await target.apply({ op: 'suppressScope', email: 't@example.com', scope: 'postmark:stream:broadcast' }),
    ).toEqual({ lists: ['stream:broadcast'] });
    expect(emails('broadcast')).toEqual(['t@example.com']);
    expect(emails('outbound')).toEqual([]);
    expect(
      await target.apply({ op: 'unsuppressScope', email: 't@example.com', scope: 'postmark:stream:broadcast' }),
    ).toEqual({ lists: ['stream:broadcast'] });
    await target.apply({ op: 'unsuppressScope', email: 't@example.com', scope: 'postmark:stream:broadcast' });
    expect(emails('broadcast')).toEqual([]);
  });

  it('unsuppress removes from the listed streams only', async () => {
    await target.apply({ op: 'suppress', email: 'x@example.com', reason: 'manual' });
    const outcome = await target.apply({ op: 'unsuppress', email: 'x@example.com', lists: ['stream:transactional'] });
    expect(outcome).toEqual({ lists: ['stream:transactional'] });
    expect(emails('outbound')).toEqual(['x@example.com']);
    expect(emails('transactional')).toEqual([]);
  });

  it('reports a SpamComplaint entry Postmark will not delete in `refused`, without throwing', async () => {
    fake.seed('outbound', 's@example.com', 'SpamComplaint');
    fake.seed('transactional', 's@example.com', 'HardBounce');
    const outcome = await target.apply({
      op: 'unsuppress',
      email: 's@example.com',
      lists: ['stream:outbound', 'stream:transactional'],
    });
    expect(outcome).toEqual({
      lists: ['stream:transactional'],
      refused: [{ list: 'stream:outbound', why: POSTMARK_SPAM_COMPLAINT_REFUSAL }],
    });
    expect(fake.stream('outbound')).toMatchObject([{ email: 's@example.com', reason: 'SpamComplaint' }]);
    expect(emails('transactional')).toEqual([]);
  });

  it('lists each stream’s dump with reason and date; topic streams carry their scope', async () => {
    fake.seed('outbound', 'hb@example.com', 'HardBounce', Date.UTC(2026, 0, 2));
    fake.seed('transactional', 'sc@example.com', 'SpamComplaint', Date.UTC(2026, 0, 3));
    fake.seed('broadcast', 'opt@example.com', 'ManualSuppression', Date.UTC(2026, 0, 4));
    const { entries, pages } = await listAll(target);
    expect(pages).toBe(3);
    expect(entries).toEqual([
      { email: 'hb@example.com', list: 'stream:outbound', reason: 'HardBounce', date: Date.UTC(2026, 0, 2) },
      { email: 'sc@example.com', list: 'stream:transactional', reason: 'SpamComplaint', date: Date.UTC(2026, 0, 3) },
      {
        email: 'opt@example.com',
        list: 'stream:broadcast',
        scope: 'postmark:stream:broadcast',
        reason: 'ManualSuppression',
        date: Date.UTC(2026, 0, 4),
      },
    ]);
  });

  it('a stream in POSTMARK_STREAMS that is also a topic is listed with its scope and marked as a global list too', async () => {
    const both = new PostmarkSyncTarget(
      {
        serverToken: fake.serverToken,
        apiUrl: fake.url,
        streams: ['outbound', 'broadcast'],
        topicStreams: ['broadcast'],
      },
      { now: () => NOW, timeoutMs: 2000 },
    );
    fake.seed('outbound', 'hb@example.com', 'HardBounce', Date.UTC(2026, 0, 2));
    fake.seed('broadcast', 'left@example.com', 'ManualSuppression', Date.UTC(2026, 0, 4));
    const { entries, pages } = await listAll(both);
    expect(pages).toBe(2);
    expect(entries).toEqual([
      { email: 'hb@example.com', list: 'stream:outbound', reason: 'HardBounce', date: Date.UTC(2026, 0, 2) },
      {
        email: 'left@example.com',
        list: 'stream:broadcast',
        scope: 'postmark:stream:broadcast',
        globalList: true,
        reason: 'ManualSuppression',
        date: Date.UTC(2026, 0, 4),
      },
    ]);
  });

  it('a ManualSuppression in any stream is that stream’s topic scope (as the consumer stores it), a global list where global', async () => {
    fake.seed('outbound', 'left@example.com', 'ManualSuppression', Date.UTC(2026, 0, 4));
    fake.seed('outbound', 'hb@example.com', 'HardBounce', Date.UTC(2026, 0, 2));
    const { entries } = await listAll(target);
    expect(entries).toEqual([
      {
        email: 'left@example.com',
        list: 'stream:outbound',
        scope: 'postmark:stream:outbound',
        globalList: true,
        reason: 'ManualSuppression',
        date: Date.UTC(2026, 0, 4),
      },
      { email: 'hb@example.com', list: 'stream:outbound', reason: 'HardBounce', date: Date.UTC(2026, 0, 2) },
    ]);
    // Reconcile compares a stream scope only where it lists the stream.
    expect(
      ['outbound', 'transactional', 'broadcast', 'news'].map((s) => target.listsScope(`postmark:stream:${s}`)),
    ).toEqual([true, true, true, false]);
    expect(target.listsScope('sendgrid:group:7')).toBe(false);
  });

  it('429: Retry-After when given, the default pause otherwise (Postmark publishes no reset header)', async () => {
    fake.rateLimit(1, { 'retry-after': '5' });
    expect(
      (
        (await rejection(
          target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }),
        )) as SyncRateLimitedError
      ).retryAtMs,
    ).toBe(NOW + 5000);
    fake.rateLimit(1, {});
    const error = await rejection(target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRateLimitedError);
    expect((error as SyncRateLimitedError).retryAtMs).toBe(NOW + 1000);
  });

  it('5xx and a closed port are transient', async () => {
    fake.script({ status: 500, body: { ErrorCode: 100, Message: 'Maintenance' } });
    expect(
      await rejection(target.apply({ op: 'suppress', email: 'd@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
    await fake.down(5000, 'refused');
    const error = await rejection(target.apply({ op: 'suppress', email: 'd@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncTransientError);
    expect(error.message).toBe('postmark POST /message-streams/{stream}/suppressions: network error ECONNREFUSED');
  });

  it('a wrong server token is SyncRefusedError 401, naming neither the token nor the address', async () => {
    const wrong = new PostmarkSyncTarget({
      serverToken: 'pm-wrong-token-xyz',
      apiUrl: fake.url,
      streams: ['outbound'],
    });
    const error = await rejection(wrong.apply({ op: 'suppress', email: 'who@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(401);
    expect(error.message).toContain('ErrorCode 10');
    expect(error.message).not.toContain('pm-wrong-token-xyz');
    expect(error.message).not.toContain('who@example.com');
  });

  it('a stream Postmark does not have is refused (422)', async () => {
    const error = await rejection(
      target.apply({ op: 'suppressScope', email: 'n@example.com', scope: 'postmark:stream:nope' }),
    );
    expect((error as SyncRefusedError).status).toBe(422);
  });
});
