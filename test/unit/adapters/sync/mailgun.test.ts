/** The Mailgun adapter against the Mailgun fake. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailgunSyncTarget } from '../../../../lambdas/adapters/sync/mailgun.js';
import {
  type SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import { type MailgunFake, startMailgunFake } from '../../../fakes/providers/mailgun.js';
import { listAll, rejection } from './support.js';

const NOW = 1_800_000_000_000;
const DOMAINS = ['mg.example.com', 'mg2.example.com'];
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

const on = (domain: string, list: 'bounces' | 'complaints' | 'unsubscribes') =>
  fake.list(domain, list).map((e) => e.address);

describe('Mailgun sync target', () => {
  it('complaint → complaints, hard bounce → bounces, the rest → unsubscribes tag *, in every domain, twice harmlessly', async () => {
    expect(await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' })).toEqual({
      lists: ['complaints@mg.example.com', 'complaints@mg2.example.com'],
    });
    await target.apply({ op: 'suppress', email: 'c@example.com', reason: 'complaint' });
    await target.apply({ op: 'suppress', email: 'b@example.com', reason: 'hard_bounce' });
    await target.apply({ op: 'suppress', email: 'u@example.com', reason: 'soft_bounce_limit' });
    for (const domain of DOMAINS) {
      expect(on(domain, 'complaints')).toEqual(['c@example.com']);
      expect(on(domain, 'bounces')).toEqual(['b@example.com']);
      expect(on(domain, 'unsubscribes')).toEqual(['u@example.com']);
    }
    expect(fake.list('mg.example.com', 'unsubscribes')[0]?.tags).toEqual(['*']);
    expect(fake.list('mg.example.com', 'bounces')[0]).toMatchObject({ code: '550' });
    expect(fake.list('mg.example.com', 'complaints')[0]?.createdAt).toBe(Math.floor(NOW / 1000) * 1000);
  });

  it('unsuppress removes from the listed lists only, and an absent address (404) is already gone', async () => {
    await target.apply({ op: 'suppress', email: 'x@example.com', reason: 'complaint' });
    const outcome = await target.apply({
      op: 'unsuppress',
      email: 'x@example.com',
      lists: ['complaints@mg2.example.com'],
    });
    expect(outcome).toEqual({ lists: ['complaints@mg2.example.com'] });
    expect(on('mg.example.com', 'complaints')).toEqual(['x@example.com']);
    expect(on('mg2.example.com', 'complaints')).toEqual([]);
    expect(
      await target.apply({
        op: 'unsuppress',
        email: 'x@example.com',
        lists: ['complaints@mg2.example.com', 'tags@mg.example.com'],
      }),
    ).toEqual({
      lists: ['complaints@mg2.example.com'],
      refused: [{ list: 'tags@mg.example.com', why: 'not a list Ratchet writes at Mailgun' }],
    });
  });

  it('holds no topic scope', async () => {
    expect(target.handlesScope('sendgrid:group:7')).toBe(false);
    expect(
      await target.apply({ op: 'suppressScope', email: 'x@example.com', scope: 'postmark:stream:broadcast' }),
    ).toEqual({ lists: [] });
    expect(fake.calls).toHaveLength(0);
  });

  it('lists every list of every domain by following paging.next until a page is empty', async () => {
    for (let i = 0; i < 5; i += 1)
      fake.seed('mg.example.com', 'bounces', {
        address: `b${i}@example.com`,
        createdAt: Date.UTC(2026, 0, 1 + i),
        code: '550',
        error: 'No such user',
      });
    fake.seed('mg2.example.com', 'complaints', { address: 'c@example.com', createdAt: Date.UTC(2026, 1, 1) });
    fake.seed('mg2.example.com', 'unsubscribes', {
      address: 'all@example.com',
      createdAt: Date.UTC(2026, 1, 2),
      tags: ['*'],
    });
    fake.seed('mg2.example.com', 'unsubscribes', {
      address: 'news@example.com',
      createdAt: Date.UTC(2026, 1, 3),
      tags: ['newsletter'],
    });
    const small = new MailgunSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url, domains: DOMAINS }, { pageLimit: 2 });
    const { entries } = await listAll(small);
    const bouncePages = fake.calls.filter((c) => c.path === '/v3/mg.example.com/bounces');
    expect(bouncePages).toHaveLength(4); // 2 + 2 + 1, then the empty page that ends it
    expect(bouncePages.slice(1).every((c) => c.query.includes('page=next'))).toBe(true);
    expect(entries.filter((e) => e.list === 'bounces@mg.example.com')).toHaveLength(5);
    expect(entries.find((e) => e.email === 'b2@example.com')).toEqual({
      email: 'b2@example.com',
      list: 'bounces@mg.example.com',
      reason: '550 No such user',
      date: Date.UTC(2026, 0, 3),
    });
    expect(entries.find((e) => e.email === 'c@example.com')).toEqual({
      email: 'c@example.com',
      list: 'complaints@mg2.example.com',
      reason: 'complaint',
      date: Date.UTC(2026, 1, 1),
    });
    expect(entries.find((e) => e.email === 'all@example.com')).toEqual({
      email: 'all@example.com',
      list: 'unsubscribes@mg2.example.com',
      reason: 'unsubscribe',
      date: Date.UTC(2026, 1, 2),
    });
    expect(entries.find((e) => e.email === 'news@example.com')?.scope).toBe('mailgun:tag:newsletter');
  });

  it('pages through addresses whose order depends on the comparison (x19@ and x190@) each exactly once', async () => {
    // A page ends at its last address, the next starts after it: the fake must sort the way it compares,
    // or `x190@…` sorts before `x19@…` (locale order) yet after it (code units), and is skipped.
    const addresses = Array.from({ length: 300 }, (_, i) => `x${i}@example.com`);
    for (const address of addresses) fake.seed('mg.example.com', 'bounces', { address, createdAt: NOW });
    const small = new MailgunSyncTarget({ apiKey: fake.apiKey, apiUrl: fake.url, domains: DOMAINS }, { pageLimit: 7 });
    const { entries } = await listAll(small);
    const listed = entries.filter((e) => e.list === 'bounces@mg.example.com').map((e) => e.email);
    expect(listed).toHaveLength(addresses.length);
    expect(new Set(listed)).toEqual(new Set(addresses));
  });

  it('never follows a paging link to another host (the key would go with it)', async () => {
    const evil = 'http://127.0.0.2:9/v3/mg.example.com/bounces?page=next';
    const seen: string[] = [];
    const stub = new MailgunSyncTarget(
      { apiKey: 'k', apiUrl: 'http://127.0.0.1:1', domains: ['mg.example.com'] },
      {
        fetch: async (url) => {
          seen.push(url);
          const items = url.includes('/bounces') && !url.includes('page=next') ? [{ address: 'a@example.com' }] : [];
          return new Response(JSON.stringify({ items, paging: { next: evil } }), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          });
        },
      },
    );
    await listAll(stub);
    expect(seen.some((u) => u.startsWith('http://127.0.0.2'))).toBe(false);
  });

  it('429 with Retry-After pauses until then, without it the default pause', async () => {
    fake.rateLimit(1, { 'retry-after': '4' });
    expect(
      (
        (await rejection(
          target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }),
        )) as SyncRateLimitedError
      ).retryAtMs,
    ).toBe(NOW + 4000);
    fake.rateLimit(1, {});
    expect(
      (
        (await rejection(
          target.apply({ op: 'suppress', email: 'r@example.com', reason: 'complaint' }),
        )) as SyncRateLimitedError
      ).retryAtMs,
    ).toBe(NOW + 1000);
  });

  it('5xx is transient', async () => {
    await fake.down(5000, '503');
    expect(
      await rejection(target.apply({ op: 'suppress', email: 'd@example.com', reason: 'complaint' })),
    ).toBeInstanceOf(SyncTransientError);
  });

  it('a wrong key is SyncRefusedError 401 whose message names neither the key, its Basic form, nor the address', async () => {
    const wrong = new MailgunSyncTarget({ apiKey: 'key-wrong-456', apiUrl: fake.url, domains: DOMAINS });
    const error = await rejection(wrong.apply({ op: 'suppress', email: 'who@example.com', reason: 'complaint' }));
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as SyncRefusedError).status).toBe(401);
    expect(error.message).toBe('mailgun POST /v3/{domain}/complaints: HTTP 401 (Forbidden)');
  });
});
