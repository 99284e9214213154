/**
 * A topic opt-out never becomes a global suppression at SendGrid. SendGrid puts a POST into a group that
 * does not exist (never did, or was deleted) on the global unsubscribes, with the same 201 as a group
 * add; so the adapter checks the group exists before it posts into it. Against the SendGrid fake, which
 * does what the reference says for such a POST (the negative control below shows it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SendGridSyncTarget } from '../../../../lambdas/adapters/sync/sendgrid.js';
import {
  type SyncOperation,
  SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import { type SendGridFake, startSendGridFake } from '../../../fakes/providers/sendgrid.js';
import { post } from './batch-support.js';
import { everythingIn, listAll, rejection } from './support.js';

const NOW = 1_800_000_000_000;
let clock = NOW;
let fake: SendGridFake;
let target: SendGridSyncTarget;

beforeEach(async () => {
  clock = NOW;
  fake = await startSendGridFake();
  target = new SendGridSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url }, { now: () => clock, timeoutMs: 2000 });
});
afterEach(() => fake.close());

const globals = () => fake.list('unsubscribes').map((i) => i.email);
const toGroup = (email: string, group: number): SyncOperation => ({
  op: 'suppressScope',
  email,
  scope: `sendgrid:group:${group}`,
});
const calls = () => fake.calls.map((c) => `${c.method} ${c.path} ${c.status}`);
const auth = () => ({ authorization: `Bearer ${fake.apiKey}` });

describe('the SendGrid fake, as the reference says (negative control)', () => {
  it('a POST into a group that does not exist lands on the global unsubscribes, answered 201 as a group add', async () => {
    const answer = await post(`${fake.url}/v3/asm/groups/999/suppressions`, auth(), {
      recipient_emails: ['only-left-a-topic@example.com'],
    });
    expect(answer).toEqual({ status: 201, body: { recipient_emails: ['only-left-a-topic@example.com'] } });
    expect(globals()).toEqual(['only-left-a-topic@example.com']);
    expect(fake.pushes().map((p) => [p.path, p.emails])).toEqual([
      ['/v3/asm/suppressions/global', ['only-left-a-topic@example.com']],
    ]);
    expect(calls()).toEqual(['POST /v3/asm/groups/999/suppressions 201']);
  });

  it('a deleted group: GET answers 404, and a POST into it lands on the global unsubscribes too', async () => {
    const group = await fetch(`${fake.url}/v3/asm/groups/7`, { headers: auth() });
    expect(group.status).toBe(200);
    expect(await group.json()).toEqual({
      id: 7,
      name: 'newsletter',
      description: 'newsletter',
      is_default: false,
      unsubscribes: 0,
    });
    expect((await fetch(`${fake.url}/v3/asm/groups/7`, { method: 'DELETE', headers: auth() })).status).toBe(204);
    const gone = await fetch(`${fake.url}/v3/asm/groups/7`, { headers: auth() });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ errors: [{ field: null, message: 'resource not found' }] });
    expect((await fetch(`${fake.url}/v3/asm/groups/999`, { headers: auth() })).status).toBe(404);
    await post(`${fake.url}/v3/asm/groups/7/suppressions`, auth(), { recipient_emails: ['was-in-7@example.com'] });
    expect(globals()).toEqual(['was-in-7@example.com']);
    expect(fake.group(7)).toEqual([]);
    expect(fake.deleteGroup(8)).toBe(true);
    expect(fake.deleteGroup(8)).toBe(false);
  });
});

describe('SendGrid adapter: a topic opt-out into a group SendGrid does not have', () => {
  it('apply: refused (permanent), naming the group and why, with no POST and nothing global', async () => {
    const error = await rejection(target.apply(toGroup('private.person@example.com', 999)));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(404);
    expect(error.message).toContain('group 999');
    expect(error.message).toContain('global');
    expect(everythingIn(error)).not.toContain('private.person');
    expect(everythingIn(error)).not.toContain(fake.apiKey);
    expect(globals()).toEqual([]);
    expect(calls()).toEqual(['GET /v3/asm/groups 200']);
  });

  it('applyMany: every entry refused, one read and no POST, nothing global', async () => {
    const batch = [toGroup('b1@example.com', 999), toGroup('b2@example.com', 999)];
    const answers = await target.applyMany(batch).catch((error: unknown) => [error, error]);
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer).toBeInstanceOf(SyncRefusedError);
      expect((answer as SyncRefusedError).message).toContain('group 999');
    }
    expect(globals()).toEqual([]);
    expect(calls()).toEqual(['GET /v3/asm/groups 200']);
  });

  it('a group deleted at SendGrid: refused once the check is read again (a new worker, or the window past)', async () => {
    await target.apply(toGroup('first@example.com', 7));
    fake.deleteGroup(7);
    fake.clearCalls();
    clock += target.groupCheckMs;
    expect(await rejection(target.apply(toGroup('second@example.com', 7)))).toBeInstanceOf(SyncRefusedError);
    expect(globals()).toEqual([]);
    expect(calls()).toEqual(['GET /v3/asm/groups 200']);
  });

  it('the check is read once per window for every group: a burst into two groups costs one read', async () => {
    expect(target.groupCheckMs).toBe(5 * 60_000);
    const burst = Array.from({ length: 20 }, (_, i) => target.apply(toGroup(`burst${i}@example.com`, 7 + (i % 2))));
    await Promise.all(burst);
    expect(fake.calls.filter((c) => c.method === 'GET')).toHaveLength(1);
    expect(fake.group(7)).toHaveLength(10);
    expect(fake.group(8)).toHaveLength(10);
    fake.clearCalls();
    clock += target.groupCheckMs - 1;
    await target.applyMany([toGroup('w1@example.com', 7), toGroup('w2@example.com', 7)]);
    expect(calls()).toEqual(['POST /v3/asm/groups/7/suppressions 201']);
    fake.clearCalls();
    clock += 1;
    await target.apply(toGroup('w3@example.com', 8));
    expect(calls()).toEqual(['GET /v3/asm/groups 200', 'POST /v3/asm/groups/8/suppressions 201']);
    expect(globals()).toEqual([]);
  });

  it('a 429 on the check is SyncRateLimitedError at the reset, a 5xx or an unreadable answer SyncTransientError; nothing posted', async () => {
    fake.rateLimit(1, { 'x-ratelimit-limit': '150', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000042' });
    const limited = await rejection(target.apply(toGroup('r@example.com', 7)));
    expect(limited).toBeInstanceOf(SyncRateLimitedError);
    expect((limited as SyncRateLimitedError).retryAtMs).toBe(1_800_000_042_000);
    fake.script({ status: 502, body: 'Bad Gateway' });
    const down = await rejection(target.applyMany([toGroup('r@example.com', 7), toGroup('s@example.com', 7)]));
    expect(down).toBeInstanceOf(SyncTransientError);
    expect(down.message).toBe('sendgrid GET /v3/asm/groups: HTTP 502 (Bad Gateway)');
    fake.script({ status: 200, body: { groups: 'not a list' } });
    const unreadable = await rejection(target.apply(toGroup('r@example.com', 7)));
    expect(unreadable).toBeInstanceOf(SyncTransientError);
    expect(fake.calls.filter((c) => c.method === 'POST')).toEqual([]);
    // None of those failures is remembered: the next push reads the groups again and goes through.
    await target.apply(toGroup('r@example.com', 7));
    expect(fake.group(7)).toEqual(['r@example.com']);
    expect(globals()).toEqual([]);
  });

  it('a scope whose digits are not a listed id as SendGrid writes it (007) is refused, not posted', async () => {
    expect(
      await rejection(target.apply({ op: 'suppressScope', email: 'z@example.com', scope: 'sendgrid:group:007' })),
    ).toBeInstanceOf(SyncRefusedError);
    expect(fake.calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('global suppressions and removals are not checked: a missing group only ever refuses an add into it', async () => {
    await target.apply({ op: 'suppress', email: 'g@example.com', reason: 'complaint' });
    // A DELETE from a group that does not exist adds nothing anywhere (the fake's 404 counts as gone).
    expect(await target.apply({ op: 'unsuppressScope', email: 'g@example.com', scope: 'sendgrid:group:999' })).toEqual({
      lists: ['group:999'],
    });
    expect(calls()).toEqual([
      'POST /v3/asm/suppressions/global 201',
      'DELETE /v3/asm/groups/999/suppressions/g%40example.com 404',
    ]);
    expect(globals()).toEqual(['g@example.com']);
  });

  it('held (the lookup before a push again) claims nothing for a missing group, so the push and its check follow', async () => {
    expect(await target.held!(toGroup('h@example.com', 999))).toBeUndefined();
    expect(calls()).toEqual(['GET /v3/asm/suppressions/h%40example.com 200']);
    expect(globals()).toEqual([]);
  });
});

describe('SendGrid list (reconcile) and a group that goes missing', () => {
  it('a group deleted between the groups list and its members read is skipped, not a failed run', async () => {
    await target.apply(toGroup('in7@example.com', 7));
    await target.apply(toGroup('in8@example.com', 8));
    const entries: string[] = [];
    await target.list((page) => {
      for (const e of page) entries.push(`${e.list} ${e.email}`);
      // Group 7's members arrive before group 8's are read: group 8 goes now.
      if (page.some((e) => e.list === 'group:7')) fake.deleteGroup(8);
    });
    expect(entries).toEqual(['group:7 in7@example.com']);
    expect(target.listsScope('sendgrid:group:7')).toBe(true);
    expect(target.listsScope('sendgrid:group:8')).toBe(false);
    expect(target.listsScope('sendgrid:group:999')).toBe(false);
    expect(target.listsScope('sendgrid:group:007')).toBe(false);
  });

  it('lists every group SendGrid has, and none it does not', async () => {
    fake.deleteGroup(8);
    await target.apply(toGroup('only7@example.com', 7));
    const { entries } = await listAll(target);
    expect(entries).toEqual([{ email: 'only7@example.com', list: 'group:7', scope: 'sendgrid:group:7' }]);
    expect(target.listsScope('sendgrid:group:8')).toBe(false);
  });
});
