/**
 * Backfill and waiting, on the local runtime against the provider fakes:
 * - sync turned on for a table that already has 500 records: every one reaches every provider with no
 *   command (the sweeper's backfill), well within 5 minutes;
 * - a provider added to SYNC_PROVIDERS later: the same for it, and nothing pushed again to the others;
 * - SYNC_RETRY_SECONDS=30, a backlog older than that and SendGrid answering 429 for longer: no dead
 *   letter, `failed` 0, and every change arrives once the 429s stop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';
import {
  ALIASES,
  heldBy,
  isTopicOnly,
  sendgridPushes,
  until,
  writeRecordsBeforeSync,
} from './sync-backfill-support.js';

const FAST = {
  TOPIC_ALIASES: ALIASES,
  POSTMARK_STREAMS: 'outbound',
  SYNC_SES_RATE: '100',
  SYNC_SENDGRID_RATE: '100',
  SYNC_POSTMARK_RATE: '100',
  SYNC_MAILGUN_RATE: '100',
  SYNC_RESEND_RATE: '100',
  SYNC_RESEND_CONCURRENCY: '4',
};
/** FAST for these providers only: npm start refuses a rate for a provider SYNC_PROVIDERS does not list. */
const fastFor = (providers: string) =>
  Object.fromEntries(
    Object.entries(FAST).filter(([name]) => {
      const provider = /^SYNC_([A-Z]+)_/.exec(name)?.[1]?.toLowerCase();
      return provider === undefined || providers.split(',').includes(provider);
    }),
  );

describe('backfill: sync turned on for a table with records, and a provider added later', () => {
  let fakes: ProviderFakes;
  const dirs: string[] = [];
  const stacks: TestStack[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratchet-backfill-'));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    fakes = await startProviderFakes();
  });
  afterAll(async () => {
    for (const stack of stacks) await stack.stop().catch(() => undefined);
    await fakes?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const missing = (emails: string[], providers?: string[]) =>
    emails.filter((email, i) =>
      Object.entries(heldBy(fakes, email, isTopicOnly(i))).some(
        ([p, held]) => (!providers || providers.includes(p)) && !held,
      ),
    );

  it('500 records, then sync on with all five providers: all 500 at every provider within 5 minutes, no command', async () => {
    const dataDir = freshDir();
    const before = await startTestStack({ dataDir, persist: true, env: {} });
    const emails = await writeRecordsBeforeSync(before, 'old', 500);
    await before.stop();

    const started = Date.now();
    const stack = await startTestStack({ dataDir, persist: true, env: { ...fakes.env, ...FAST } });
    stacks.push(stack);
    stack.sync!.start();
    await until(
      () => missing(emails).length === 0,
      300_000,
      () => {
        const by: Record<string, number> = {};
        emails.forEach((e, i) => {
          for (const [p, held] of Object.entries(heldBy(fakes, e, isTopicOnly(i)))) if (!held) by[p] = (by[p] ?? 0) + 1;
        });
        return `${missing(emails).length} addresses missing: ${JSON.stringify(by)}`;
      },
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(300_000);
    const status = JSON.parse(
      (await ratchet(stack.cliEnv({ SYNC_PROVIDERS: fakes.env.SYNC_PROVIDERS! }), 'sync', 'status', '--json')).out,
    );
    for (const p of ['ses', 'sendgrid', 'postmark', 'mailgun', 'resend'])
      expect(status.providers[p].backfill).toMatchObject({ state: 'done', scanned: 500 });
    // 450 suppressed for every provider; the 50 topic opt-outs only where the topic has a scope.
    expect(status.providers.ses.backfill.marked + status.providers.sendgrid.backfill.marked).toBeGreaterThanOrEqual(
      500,
    );
    for (const email of emails) expect(sendgridPushes(fakes, email)).toBe(1);
    await stack.stop();
    stacks.pop();
  }, 360_000);

  it('a provider added later gets every record; the providers it joins are not pushed again', async () => {
    // A stack the test before left running on failure would compete for the fakes.
    for (const left of stacks.splice(0)) await left.stop().catch(() => undefined);
    // A table written before sync, whose records were then all pushed to SES only.
    const dataDir = freshDir();
    const seed = await startTestStack({ dataDir, persist: true, env: {} });
    const emails = await writeRecordsBeforeSync(seed, 'later', 200);
    await seed.stop();
    const first = await startTestStack({
      dataDir,
      persist: true,
      env: { ...fakes.env, ...fastFor('ses'), SYNC_PROVIDERS: 'ses' },
    });
    stacks.push(first);
    first.sync!.start();
    const sesOnly = emails.filter((_, i) => !isTopicOnly(i));
    await until(
      () => sesOnly.every((e) => fakes.ses.get(e) !== undefined),
      120_000,
      () => 'ses not caught up',
    );
    await until(
      async () => (await Promise.all(emails.map((e) => first.record(e)))).every((r) => r?.syncPending === undefined),
      60_000,
      () => 'markers not cleared',
    );
    await first.stop();
    stacks.pop();
    const sesCalls = fakes.ses.calls.length;

    const second = await startTestStack({
      dataDir,
      persist: true,
      env: { ...fakes.env, ...fastFor('ses,sendgrid'), SYNC_PROVIDERS: 'ses,sendgrid' },
    });
    stacks.push(second);
    second.sync!.start();
    await until(
      () => missing(emails, ['sendgrid']).length === 0,
      300_000,
      () => `${missing(emails, ['sendgrid']).length} missing at sendgrid`,
    );
    for (const email of emails) expect(sendgridPushes(fakes, email)).toBe(1);
    // SES already had every one of them: the backfill marked them for SendGrid, and SES planned nothing.
    expect(fakes.ses.calls.length).toBe(sesCalls);
  }, 360_000);
});

describe('waiting is not failing', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;

  beforeAll(async () => {
    fakes = await startProviderFakes();
    stack = await startTestStack({
      env: { ...fakes.env, SYNC_PROVIDERS: 'sendgrid', SYNC_RETRY_SECONDS: '30', SYNC_SENDGRID_RATE: '50' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  it('SYNC_RETRY_SECONDS=30, a backlog older than that, SendGrid answering 429 for longer: no dead letter, failed 0, all arrive after', async () => {
    const emails = Array.from({ length: 60 }, (_, i) => `backlog${i}@example.com`);
    fakes.sendgrid.rateLimitFor(45_000, { 'Retry-After': '2' });
    const limitedUntil = Date.now() + 45_000;
    // The backlog: the fast path's messages, queued now, attempted against the 429s for 45 s.
    const writer = new DynamoSuppressionStore(
      stack.clients.doc,
      stack.config.suppressionTable,
      policyFromSettings({}),
      {
        onSyncChange: stack.sync!.fastPath,
      },
    );
    for (const email of emails) await writer.suppress(email, { actor: 'ops', reason: 'backlog', at: Date.now() });
    stack.sync!.start();
    const held = () => emails.filter((e) => fakes.sendgrid.list('unsubscribes').some((i) => i.email === e)).length;
    await until(
      () => held() === emails.length,
      120_000,
      () => `${held()} of ${emails.length} at sendgrid`,
    );
    // Nothing got through while the 429s lasted, and every message was older than the horizon by then.
    expect(Date.now()).toBeGreaterThanOrEqual(limitedUntil);
    const answered = fakes.sendgrid.calls.filter((c) => c.method === 'POST');
    expect(answered.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    expect(answered.filter((c) => c.status < 300).every((c) => c.at >= limitedUntil)).toBe(true);
    // A batch lands at SendGrid in one request, and its messages are deleted once each has recorded it.
    await until(
      async () => (await stack.sync!.worker.queue.depth()).total === 0,
      10_000,
      () => 'sync queue still holds messages after every change arrived',
    );
    const status = JSON.parse(
      (
        await ratchet(
          stack.cliEnv({
            SYNC_PROVIDERS: 'sendgrid',
            SYNC_QUEUE_URL: stack.sync!.queueUrl,
            SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl,
          }),
          'sync',
          'status',
          '--json',
        )
      ).out,
    );
    expect(status.providers.sendgrid).toMatchObject({ failed: 0, pending: 0 });
    expect(stack.counters.totals.get('SyncFailed{provider=sendgrid}')).toBeUndefined();
    for (const email of emails) expect((await stack.record(email))!.sync.sendgrid).not.toHaveProperty('failed');
  }, 150_000);
});
