/**
 * `ratchet sync reconcile` at the edges an operator meets with real lists, on the local runtime against
 * the provider fakes: an opt-in whose removal at the provider is still to come, entries the provider
 * keeps that are not addresses Ratchet can key on, a Mailgun tag that is no topic name, and a 429 in the
 * middle of the paging or the repairs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncTargets, readSyncConfig } from '../../lambdas/adapters/sync/index.js';
import { SyncRefusedError, type SyncTarget } from '../../lambdas/core/sync/target.js';
import { reconcile as reconcileInProcess } from '../../lib/cli/commands/sync-reconcile.js';
import { Context } from '../../lib/cli/context.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack, syncUntil as syncUntilDone } from './sync-reconcile-support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ALIASES = 'sendgrid:group:7=newsletter';

interface ProviderDriftJson {
  missingAtProvider: Array<{ email: string; list: string }>;
  missingInRatchet: Array<{ email: string; list: string; reason: string | null; date: number | null }>;
  informational: Array<{ email: string; list: string; reason: string | null; date: number | null }>;
}

describe('sync reconcile: edges of real lists', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ fakes, stack, env } = await startReconcileStack({ POSTMARK_STREAMS: 'outbound', TOPIC_ALIASES: ALIASES }));
  });
  afterAll(() => stopReconcileStack({ fakes, stack }));
  const syncUntil = (done: () => boolean, timeoutMs?: number) => syncUntilDone(stack, done, timeoutMs);

  async function reconcile(
    ...args: string[]
  ): Promise<{ code: number; err: string; providers: Record<string, ProviderDriftJson> }> {
    const result = await ratchet(env, 'sync', 'reconcile', '--json', ...args);
    return { code: result.code, err: result.err, providers: result.out ? JSON.parse(result.out).providers : {} };
  }

  it('an opt-in whose removal from the SendGrid group is still to be pushed is no drift, and --apply keeps the opt-in', async () => {
    const email = 'back-in@example.com';
    expect(
      await ratchet(env, 'suppressions', 'add', email, '--topic', 'newsletter', '--reason', 'asked'),
    ).toMatchObject({ code: 0 });
    await syncUntil(() => fakes.sendgrid.group(7).includes(email));
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    // Opted in again; the worker has not pushed the removal yet (SendGrid's group list carries no dates).
    expect(
      await ratchet(env, 'suppressions', 'reactivate', email, '--topic', 'newsletter', '--reason', 'asked again'),
    ).toMatchObject({ code: 0 });
    expect(fakes.sendgrid.group(7)).toContain(email);

    const found = await reconcile('--provider', 'sendgrid');
    expect(found.providers.sendgrid!.missingInRatchet).toEqual([]);
    expect(found.code).toBe(0);
    expect(await reconcile('--provider', 'sendgrid', '--apply')).toMatchObject({ code: 0 });
    expect((await stack.record(email))!.topics.newsletter.status).toBe('subscribed');

    // Once pushed, the group no longer holds it, and nothing is drift either.
    await syncUntil(() => !fakes.sendgrid.group(7).includes(email));
    expect((await reconcile('--provider', 'sendgrid')).code).toBe(0);
  }, 60_000);

  it('a recipient who left a Postmark stream (a topic under its canonical name, no alias) is no drift, and never made global', async () => {
    // `outbound` is a global stream (POSTMARK_STREAMS); `broadcast` is neither global nor named in TOPIC_ALIASES.
    const email = 'left-outbound@example.com';
    for (const topic of ['outbound', 'broadcast']) {
      const request = findDemoSigner('postmark')!.sign('unsubscribe', email, stack.demo.postmark!, Date.now(), {
        topic,
      });
      expect(await stack.post('postmark', request)).toMatchObject({ status: 200 });
    }
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({
      status: 'active',
      topics: {
        'postmark:stream:outbound': { status: 'unsubscribed' },
        'postmark:stream:broadcast': { status: 'unsubscribed' },
      },
    });
    const inStream = (stream: string) => fakes.postmark.stream(stream).some((e) => e.email === email);
    await syncUntil(() => inStream('outbound') && inStream('broadcast'));
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);

    const found = await reconcile('--provider', 'postmark');
    expect(found.providers.postmark!.missingInRatchet.filter((m) => m.email === email)).toEqual([]);
    expect(found.providers.postmark!.missingAtProvider.filter((m) => m.email === email)).toEqual([]);
    await reconcile('--provider', 'postmark', '--apply');
    expect(await stack.record(email)).toMatchObject({ status: 'active', reasons: [] });
    const again = await reconcile('--provider', 'postmark');
    expect(again.providers.postmark!.missingAtProvider.filter((m) => m.email === email)).toEqual([]);
  }, 60_000);

  it('an entry that is not an address Ratchet keys on is listed as informational, and the run goes on', async () => {
    // SendGrid's invalid_emails list holds what SendGrid found undeliverable, as the sender spelled it.
    const created = Math.floor(Date.now() / 1000) - 3600;
    fakes.sendgrid.seed('invalid_emails', { email: 'user@bücher.example', created, reason: 'Mail domain invalid' });
    fakes.sendgrid.seed('invalid_emails', { email: 'nobody@localhost', created });
    fakes.sendgrid.seed('bounces', { email: 'Real@Example.com', created, reason: '550 no such user' });
    // SendGrid's spam reports carry no reason: the JSON says null, never leaves the field out.
    fakes.sendgrid.seed('spam_reports', { email: 'no-reason@example.com', created });

    const found = await reconcile('--provider', 'sendgrid');
    expect(found.err).toBe('');
    expect(found.code).toBe(1);
    const at = created * 1000;
    expect(found.providers.sendgrid!.missingInRatchet).toEqual([
      { email: 'no-reason@example.com', list: 'spam_reports', reason: null, date: at },
      { email: 'real@example.com', list: 'bounces', reason: '550 no such user', date: at },
    ]);
    expect(found.providers.sendgrid!.informational).toEqual(
      expect.arrayContaining([
        { email: 'user@bücher.example', list: 'invalid_emails', reason: 'Mail domain invalid', date: at },
        { email: 'nobody@localhost', list: 'invalid_emails', reason: null, date: at },
      ]),
    );
    expect(await reconcile('--provider', 'sendgrid', '--apply')).toMatchObject({ code: 0 });
    expect(await stack.record('real@example.com')).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(await stack.record('no-reason@example.com')).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect(await reconcile('--provider', 'sendgrid')).toMatchObject({ code: 0 });
  }, 60_000);

  it('a Mailgun unsubscribe from a tag that is no topic name is listed, never imported, and --apply finishes', async () => {
    const domain = fakes.mailgun.domains[0]!;
    const createdAt = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
    fakes.mailgun.seed(domain, 'unsubscribes', { address: 'tagged@example.com', createdAt, tags: ['Weekly digest'] });
    fakes.mailgun.seed(domain, 'unsubscribes', { address: 'later@example.com', createdAt, tags: ['*'] });

    const applied = await ratchet(env, 'sync', 'reconcile', '--provider', 'mailgun', '--apply');
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    // The run went past the tag: the next address was imported.
    expect(await stack.record('later@example.com')).toMatchObject({ status: 'suppressed', reason: 'unsubscribe' });
    expect(await stack.record('tagged@example.com')).toBeUndefined();
    const again = await reconcile('--provider', 'mailgun');
    expect(again.providers.mailgun!.missingInRatchet).toEqual([]);
    expect(again.providers.mailgun!.informational).toEqual([
      expect.objectContaining({ email: 'tagged@example.com', list: `unsubscribes@${domain}` }),
    ]);
    expect(again.code).toBe(0);
  }, 60_000);

  it('a 429 while paging or repairing is waited out (Retry-After), not a failed run', async () => {
    const created = Math.floor(Date.now() / 1000) - 60;
    fakes.sendgrid.seed('spam_reports', { email: 'paged-429@example.com', created });
    // The first list page answers 429 with Retry-After 1 s.
    fakes.sendgrid.rateLimit(1, { 'retry-after': '1' });
    const started = Date.now();
    const found = await reconcile('--provider', 'sendgrid');
    expect(found.err).toContain('sendgrid rate limit: waiting until');
    expect(found.code).toBe(1);
    expect(found.providers.sendgrid!.missingInRatchet).toEqual([
      expect.objectContaining({ email: 'paged-429@example.com', list: 'spam_reports' }),
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    // A repair meets a 429 on SES (no reset header: the default pause) and still lands.
    const { DynamoSuppressionStore } = await import('../../lambdas/adapters/dynamodb-suppressions.js');
    await new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable).suppress('ses-429@example.com', {
      actor: 'ops',
      reason: 'seed',
      at: Date.now(),
    });
    // The list call is answered (an empty list), the push that follows meets the 429.
    fakes.ses.script({ status: 200, body: { SuppressedDestinationSummaries: [] } });
    fakes.ses.rateLimit(1, {});
    const result = await ratchet(env, 'sync', 'reconcile', '--provider', 'ses', '--apply');
    expect(result.err).toContain('ses rate limit: waiting until');
    expect(result.code).toBe(0);
    expect(fakes.ses.get('ses-429@example.com')).toBeDefined();
  }, 60_000);

  it('a list Ratchet once pushed to that a push no longer reaches (a Mailgun domain retired) is repaired once, then clean', async () => {
    const [kept, retired] = fakes.mailgun.domains as [string, string];
    const email = 'retired-domain@example.com';
    expect(await ratchet(env, 'suppressions', 'add', email, '--reason', 'asked')).toMatchObject({ code: 0 });
    const held = (domain: string) => fakes.mailgun.list(domain, 'unsubscribes').some((e) => e.address === email);
    await syncUntil(() => held(kept) && held(retired));
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);

    const narrowed = { ...env, MAILGUN_DOMAINS: kept };
    const run = async (...args: string[]) => {
      const result = await ratchet(narrowed, 'sync', 'reconcile', '--provider', 'mailgun', '--json', ...args);
      return { code: result.code, drift: JSON.parse(result.out).providers.mailgun as ProviderDriftJson };
    };
    // What Ratchet believes is on the retired domain cannot be seen there: reported, and --apply repairs it once.
    expect((await run()).drift.missingAtProvider).toContainEqual({ email, list: `unsubscribes@${retired}` });
    expect((await run('--apply')).code).toBe(0);
    const again = await run();
    expect(again.drift.missingAtProvider).toEqual([]);
    expect(again.code).toBe(0);
    expect((await stack.record(email))!.sync.mailgun.lists).toEqual([`unsubscribes@${kept}`]);
  }, 60_000);

  it('a push the provider refuses for one address is reported, and --apply goes on to the next (exit 1)', async () => {
    const { DynamoSuppressionStore } = await import('../../lambdas/adapters/dynamodb-suppressions.js');
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable);
    for (const email of ['a-refused@example.com', 'b-pushed@example.com'])
      await store.suppress(email, { actor: 'ops', reason: 'seed', at: Date.now() });
    const config = readSyncConfig({ ...env, SYNC_PROVIDERS: 'sendgrid' });
    if (!config.ok) throw new Error(config.problems.join('; '));
    const [sendgrid] = createSyncTargets(config.config);
    // SendGrid refuses some addresses it finds invalid (400); the fake accepts every address Ratchet keys on.
    const refusing: SyncTarget = {
      provider: 'sendgrid',
      handlesScope: (scope) => sendgrid!.handlesScope(scope),
      list: (onPage) => sendgrid!.list(onPage),
      apply: async (operation) => {
        if (operation.email === 'a-refused@example.com')
          throw new SyncRefusedError('sendgrid', 400, 'sendgrid POST /v3/asm/suppressions/global: HTTP 400 (invalid)');
        return sendgrid!.apply(operation);
      },
    };
    const err: string[] = [];
    const ctx = new Context(env, { out: () => undefined, err: (l) => err.push(l), progressTty: false });
    const report = await reconcileInProcess(ctx, [refusing], { apply: true });
    expect(fakes.sendgrid.list('unsubscribes').map((i) => i.email)).toContain('b-pushed@example.com');
    expect(fakes.sendgrid.list('unsubscribes').map((i) => i.email)).not.toContain('a-refused@example.com');
    expect(report.failed).toBe(1);
    expect(err).toEqual([
      'sendgrid refused the push for a-refused@example.com: sendgrid POST /v3/asm/suppressions/global: HTTP 400 (invalid)',
    ]);
    ctx.close();

    // Through the CLI, against SES: its list answered empty, the first push refused, the rest pushed; exit 1.
    fakes.ses.script({ status: 200, body: { SuppressedDestinationSummaries: [] } });
    fakes.ses.script({
      status: 400,
      headers: { 'x-amzn-errortype': 'BadRequestException' },
      body: { message: 'Invalid email address' },
    });
    const cli = await ratchet(env, 'sync', 'reconcile', '--provider', 'ses', '--apply');
    expect(cli.err).toMatch(/^ses refused the push for a-refused@example\.com: ses PutSuppressedDestination: HTTP 400/);
    expect(cli.out).toMatch(/applied: \d+ pushed, 0 imported, 1 refused by the provider/);
    expect(cli.code).toBe(1);
    expect(fakes.ses.get('b-pushed@example.com')).toBeDefined();
  }, 60_000);

  it('an opt-out of a SendGrid group the account no longer has is not expected there (no drift, no refused push)', async () => {
    const email = 'gone-group@example.com';
    expect(
      await ratchet(env, 'suppressions', 'add', email, '--topic', 'sendgrid:group:9', '--reason', 'asked'),
    ).toMatchObject({ code: 0 });
    const found = await reconcile('--provider', 'sendgrid');
    expect(found.providers.sendgrid!.missingAtProvider.filter((m) => m.email === email)).toEqual([]);
    const applied = await ratchet(env, 'sync', 'reconcile', '--provider', 'sendgrid', '--apply');
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
  }, 60_000);

  it('a provider that cannot be reached is named in the error, not blamed on DynamoDB, and nothing is recorded', async () => {
    const before = JSON.parse((await ratchet(env, 'sync', 'status', '--json')).out).providers.sendgrid.lastReconcile;
    await fakes.sendgrid.down(1_000, 'refused');
    const failed = await ratchet(env, 'sync', 'reconcile', '--provider', 'sendgrid', '--apply');
    expect(failed).toMatchObject({ code: 1, out: '' });
    expect(failed.err).toMatch(/^error: sync reconcile: sendgrid GET \/v3\/suppression\/bounces: network error/);
    expect(failed.err).not.toContain('DYNAMODB_ENDPOINT');
    const after = JSON.parse((await ratchet(env, 'sync', 'status', '--json')).out).providers.sendgrid.lastReconcile;
    expect(after).toEqual(before);
    await sleep(1_100);
  }, 60_000);
});
