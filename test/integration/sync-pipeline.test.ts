/**
 * Sync on the real local stack (dynalite + fauxqs + the same handlers), with in-memory provider
 * targets (test/support/memory-sync-target.ts) standing in for the provider APIs: a signed webhook →
 * edge → consumer → suppression table with the outbox marker → fast path → sync worker → provider.
 * The pollers are driven by hand so each test decides when things run; time is real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { FAST_PATH_GRACE_MS } from '../../lambdas/adapters/suppression-sync-fields.js';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { pendingKey } from '../../lambdas/core/sync/shard.js';
import type { SyncProviderName } from '../../lambdas/core/sync/target.js';
import type { DemoOptions } from '../../lib/demo/types.js';
import { type MemorySyncTarget, memoryTargets } from '../support/memory-sync-target.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

const ENV = {
  SYNC_PROVIDERS: 'ses,sendgrid,postmark,mailgun,resend',
  TOPIC_ALIASES: 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter',
  // Resend's default (1 call/s, as its API documents 2/s per team) would make a 20-address burst take 20 s.
  SYNC_RESEND_RATE: '50',
  SYNC_RESEND_CONCURRENCY: '4',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sync pipeline, end to end on the local stack', () => {
  let stack: TestStack;
  let targets: Map<SyncProviderName, MemorySyncTarget>;
  let clock = Date.now();

  beforeAll(async () => {
    targets = memoryTargets({
      postmarkStreams: ['outbound', 'broadcast'],
      mailgunDomains: ['mg.example.com', 'news.example.com'],
    });
    stack = await startTestStack({ env: ENV, syncTargets: targets });
  });
  afterAll(() => stack?.stop());

  async function send(provider: string, kind: ActionableKind, email: string, options?: DemoOptions): Promise<void> {
    clock += 1000;
    const request = stack.sign(provider, kind, email, clock);
    const signed = options
      ? (await import('../../lib/demo/index.js'))
          .findDemoSigner(provider)!
          .sign(kind, email, stack.demo[provider]!, clock, options)
      : request;
    expect(await stack.post(provider, signed)).toMatchObject({ status: 200 });
    await stack.drain();
  }

  /** Runs the sync worker until `done()` holds, or fails after `timeoutMs`. */
  async function syncUntil(done: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('sync did not finish in time');
      if ((await stack.sync!.pollOnce(0)) === 0) await sleep(50);
    }
  }

  const target = (name: SyncProviderName) => targets.get(name)!;

  it('a complaint by webhook reaches every provider in the right list, and the record says where', async () => {
    const email = 'complainer@example.com';
    await send('ses', 'complaint', email);
    await syncUntil(() => [...targets.values()].every((t) => t.listsOf(email).length > 0));
    expect(target('ses').listsOf(email)).toEqual(['account']);
    expect(target('sendgrid').listsOf(email)).toEqual(['global_unsubscribes']);
    expect(target('postmark').listsOf(email)).toEqual(['stream:broadcast', 'stream:outbound']);
    expect(target('mailgun').listsOf(email)).toEqual(['complaints@mg.example.com', 'complaints@news.example.com']);
    expect(target('resend').listsOf(email)).toEqual(['suppressions']);
    await syncUntil(async () => (await stack.record(email))?.syncPending === undefined);
    const record = await stack.record(email);
    expect(record!.sync.ses).toMatchObject({
      reason: 'complaint',
      providerReason: 'COMPLAINT',
      lists: ['account'],
      change: record!.syncChange,
    });
    expect(record!.sync.mailgun.lists).toEqual(['complaints@mg.example.com', 'complaints@news.example.com']);
    expect(record).not.toHaveProperty('syncDue');
  });

  it('a SendGrid group-7 unsubscribe reaches group 7 and Postmark broadcast through the alias, and nothing global', async () => {
    const email = 'grouped@example.com';
    await send('sendgrid', 'unsubscribe', email, { topic: '7' });
    await syncUntil(
      () =>
        target('sendgrid').has('sendgrid:group:7', email) && target('postmark').has('postmark:stream:broadcast', email),
    );
    await syncUntil(async () => (await stack.record(email))?.syncPending === undefined);
    for (const t of targets.values()) expect(t.listsOf(email).filter((l) => !l.includes(':'))).toEqual([]);
    expect(target('sendgrid').listsOf(email)).toEqual(['sendgrid:group:7']);
    expect(target('postmark').listsOf(email)).toEqual(['postmark:stream:broadcast']);
  });

  it('429 with Retry-After 2, three times: pushed afterwards, no call before each named time, and the others are not held up', async () => {
    const email = 'limited@example.com';
    target('sendgrid').rateLimitNext(3, 2);
    const before = target('sendgrid').calls.length;
    await send('mailgun', 'hard_bounce', email);
    await syncUntil(() => target('ses').has('account', email) && target('resend').has('suppressions', email), 3_000);
    expect(target('sendgrid').has('global_unsubscribes', email)).toBe(false);
    await syncUntil(() => target('sendgrid').has('global_unsubscribes', email), 15_000);
    const calls = target('sendgrid').calls.slice(before);
    expect(calls.map((c) => c.outcome)).toEqual([
      'SyncRateLimitedError',
      'SyncRateLimitedError',
      'SyncRateLimitedError',
      'ok',
    ]);
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.at - calls[i - 1]!.at).toBeGreaterThanOrEqual(2000);
  }, 20_000);

  it('a provider down for 20 s: everything is pushed after it recovers', async () => {
    const emails = ['down1@example.com', 'down2@example.com', 'down3@example.com'];
    target('resend').downFor(20_000);
    const start = Date.now();
    for (const email of emails) await send('postmark', 'hard_bounce', email);
    await syncUntil(() => emails.every((e) => target('ses').has('account', e)), 3_000);
    await syncUntil(() => emails.every((e) => target('resend').has('suppressions', e)), 55_000);
    expect(Date.now() - start).toBeGreaterThanOrEqual(20_000);
    await syncUntil(async () =>
      (await Promise.all(emails.map((e) => stack.record(e)))).every((r) => r?.syncPending === undefined),
    );
  }, 70_000);

  it('an audited reactivation removes the address from every list Ratchet pushed it to, and records the answers', async () => {
    const email = 'complainer@example.com';
    const cli = await ratchet(
      stack.cliEnv(),
      'suppressions',
      'reactivate',
      email,
      '--reason',
      'customer asked',
      '--actor',
      'ops',
    );
    expect(cli.code).toBe(0);
    // The CLI wrote the outbox marker; the sweeper finds it once the fast-path grace has passed.
    expect(await stack.sync!.sweep(Date.now() + FAST_PATH_GRACE_MS + 1)).toBe(5);
    await syncUntil(() => [...targets.values()].every((t) => t.listsOf(email).length === 0));
    await syncUntil(async () => (await stack.record(email))?.syncPending === undefined);
    const record = await stack.record(email);
    const audit = record!.audit.find((a: { action: string }) => a.action === 'reactivate');
    expect(record!.sync.mailgun).toMatchObject({
      lists: [],
      reactivation: {
        auditAt: audit.at,
        removed: ['complaints@mg.example.com', 'complaints@news.example.com'],
        refused: [],
      },
    });
    expect(record!.sync.ses).not.toHaveProperty('reason');
  });

  it('a CLI write that knows the sync queue sends the fast path itself: pushed without waiting for a sweep', async () => {
    const email = 'by-hand@example.com';
    const env = stack.cliEnv({ SYNC_QUEUE_URL: stack.sync!.queueUrl, SYNC_PROVIDERS: ENV.SYNC_PROVIDERS });
    expect(await ratchet(env, 'suppressions', 'add', email, '--reason', 'asked', '--actor', 'ops')).toMatchObject({
      code: 0,
    });
    await syncUntil(() => [...targets.values()].every((t) => t.listsOf(email).length > 0), 5_000);
    expect(target('mailgun').listsOf(email)).toEqual(['unsubscribes@mg.example.com', 'unsubscribes@news.example.com']);
  });

  it('a delivery or a soft bounce writes no sync change: no message, no marker', async () => {
    const email = 'quiet@example.com';
    await send('ses', 'soft_bounce', email);
    const record = await stack.record(email);
    expect(record).not.toHaveProperty('syncPending');
    expect(record!.syncChange ?? 0).toBe(0);
    expect(await stack.sync!.pollOnce(0)).toBe(0);
  });

  it('a permanent refusal is dead-lettered at once and shown on the record; a new attempt after the fix pushes it', async () => {
    const email = 'refused@example.com';
    target('resend').refuseWith(401);
    await send('ses', 'hard_bounce', email);
    await syncUntil(async () => (await stack.record(email))?.sync?.resend?.failed !== undefined);
    const record = await stack.record(email);
    expect(record!.sync.resend.failed).toMatchObject({
      change: record!.syncChange,
      error: expect.stringContaining('401'),
    });
    expect(record!.syncPending).toBe(pendingKey(email));
    expect(stack.counters.totals.get('SyncFailed{provider=resend}')).toBe(1);
    // Not swept again: a dead change waits for `ratchet sync retry`.
    expect(await stack.sync!.sweep(Date.now() + 10 * FAST_PATH_GRACE_MS)).toBe(0);
  });
});

describe('sync survives a crash between the suppression write and the fast-path send', () => {
  it('changes written with no message sent are pushed by the sweep when the runtime starts again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-sync-crash-'));
    try {
      const first = await startTestStack({ dataDir, persist: true, env: ENV, syncTargets: memoryTargets() });
      // The consumer's put without its fast path: what the table holds when the process dies right after the put.
      const store = new DynamoSuppressionStore(
        first.clients.doc,
        first.config.suppressionTable,
        policyFromSettings(ENV),
      );
      const emails = Array.from({ length: 20 }, (_, i) => `crash${i}@example.com`);
      for (const email of emails) await store.suppress(email, { actor: 'ops', reason: 'test', at: Date.now() });
      expect(await first.sync!.pollOnce(0)).toBe(0);
      await first.stop();

      const targets = memoryTargets();
      const second = await startTestStack({ dataDir, persist: true, env: ENV, syncTargets: targets });
      try {
        const deadline = Date.now() + 15_000;
        while (!emails.every((e) => [...targets.values()].every((t) => t.listsOf(e).length > 0))) {
          if (Date.now() > deadline) throw new Error('not every address reached every provider');
          if ((await second.sync!.pollOnce(0)) === 0) await sleep(50);
        }
        expect(targets.get('ses')!.listsOf(emails[0]!)).toEqual(['account']);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 40_000);
});

describe('npm start refuses a sync provider without its credential or required setting', () => {
  it('one line per problem, naming the variable, and no key in it', async () => {
    const { startLocalStack } = await import('../support/local-stack.js');
    const attempt = startLocalStack({
      env: { SYNC_PROVIDERS: 'sendgrid,mailgun', MAILGUN_API_KEY: 'key-0123456789abcdef0123456789abcdef' },
    });
    await expect(attempt).rejects.toThrow(
      'SYNC_PROVIDERS includes sendgrid but SENDGRID_API_KEY is not set\nSYNC_PROVIDERS includes mailgun but MAILGUN_DOMAINS is not set',
    );
    await expect(attempt).rejects.not.toThrow(/key-0123/);
    await expect(startLocalStack({ env: { SYNC_PROVIDERS: 'ses,sparkpost' } })).rejects.toThrow(
      /^SYNC_PROVIDERS: "sparkpost" is not one of/,
    );
  });
});

describe('the local sync poller batches as the event source mapping does', () => {
  it('messages that arrive within the batching window go to the handler as one batch', async () => {
    const env = { SYNC_PROVIDERS: 'sendgrid' };
    const stack = await startTestStack({ env, syncTargets: memoryTargets() });
    try {
      const sync = stack.sync!;
      const batches: number[] = [];
      const handler = sync.worker.handler;
      (sync.worker as { handler: typeof handler }).handler = (event) => {
        batches.push(event.Records.length);
        return handler(event);
      };
      const store = new DynamoSuppressionStore(
        stack.clients.doc,
        stack.config.suppressionTable,
        policyFromSettings(env),
        {
          onSyncChange: sync.fastPath,
        },
      );
      const suppress = (i: number) =>
        store.suppress(`window${i}@example.com`, { actor: 'ops', reason: 'test', at: Date.now() });
      for (let i = 0; i < 3; i++) await suppress(i);
      // Ten more arrive 200 ms into the window, while the poller is filling its batch. (How a backlog
      // fills a whole batch, and the cap: test/integration/sync-poller.test.ts.)
      const later = sleep(200).then(async () => {
        for (let i = 3; i < 13; i++) await suppress(i);
      });
      expect(await sync.pollOnce(0)).toBe(13);
      await later;
      while ((await sync.pollOnce(0)) > 0);
      expect(batches).toEqual([13]);
    } finally {
      await stack.stop();
    }
  }, 30_000);
});

describe('the fast path shares SendMessageBatch requests between changes written together', () => {
  it('twelve messages from changes written at once: two requests (ten and two), every message on the queue', async () => {
    const env = { SYNC_PROVIDERS: 'sendgrid,resend' };
    const stack = await startTestStack({ env, syncTargets: memoryTargets() });
    const sent: string[] = [];
    stack.clients.sqs.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(context.commandName!);
        return next(args);
      },
      { step: 'initialize', name: 'countFastPathCommands' },
    );
    try {
      const emails = Array.from({ length: 6 }, (_, i) => `together${i}@example.com`);
      await Promise.all(emails.map((email) => stack.sync!.fastPath(email)));
      expect(sent).toEqual(['SendMessageBatchCommand', 'SendMessageBatchCommand']);
      const batches: string[][] = [];
      const handler = stack.sync!.worker.handler;
      (stack.sync!.worker as { handler: typeof handler }).handler = async (event) => {
        batches.push(event.Records.map((r) => r.body));
        return { batchItemFailures: [] };
      };
      while ((await stack.sync!.pollOnce(0)) > 0);
      const bodies = batches.flat().map((body) => JSON.parse(body) as { email: string; provider: string });
      expect(bodies.map((b) => `${b.provider}:${b.email}`).sort()).toEqual(
        emails.flatMap((email) => [`resend:${email}`, `sendgrid:${email}`]).sort(),
      );
    } finally {
      await stack.stop();
    }
  }, 30_000);
});
