/**
 * Sync against the HTTP provider fakes (test/fakes/providers: each written from the provider's API
 * reference, checking keys and bodies, paging, answering 429 with Retry-After), on the local runtime
 * with the endpoint overrides pointing at them: the "How to show it", end to end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_PATH_GRACE_MS } from '../../lambdas/adapters/suppression-sync-fields.js';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { DemoOptions } from '../../lib/demo/types.js';
import { writeState } from '../../lib/local/state.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ALIASES = 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter';

describe('sync to the provider fakes, on the local runtime', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let clock = Date.now();

  beforeAll(async () => {
    fakes = await startProviderFakes();
    stack = await startTestStack({ env: { ...fakes.env, TOPIC_ALIASES: ALIASES, SYNC_RESEND_RATE: '20' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  async function send(provider: string, kind: ActionableKind, email: string, options?: DemoOptions): Promise<void> {
    clock += 1000;
    const request = findDemoSigner(provider)!.sign(kind, email, stack.demo[provider]!, clock, options);
    expect(await stack.post(provider, request)).toMatchObject({ status: 200 });
    await stack.drain();
  }

  async function syncUntil(done: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`sync did not finish in time: ${JSON.stringify(fakes.postmark.calls.slice(-3))}`);
      if ((await stack.sync!.pollOnce(0)) === 0) await sleep(50);
    }
  }

  const everywhere = (email: string) => ({
    ses: fakes.ses.get(email)?.reason,
    sendgrid: fakes.sendgrid.list('unsubscribes').some((i) => i.email === email),
    postmark: fakes.postmark.streams.filter((s) => fakes.postmark.stream(s).some((e) => e.email === email)),
    mailgun: fakes.mailgun.domains.flatMap((d) =>
      (['bounces', 'complaints', 'unsubscribes'] as const)
        .filter((l) => fakes.mailgun.list(d, l).some((e) => e.address === email))
        .map((l) => `${l}@${d}`),
    ),
    resend: fakes.resend.entries().some((e) => e.email === email),
  });
  /** Held by all five (in at least one list each). */
  const suppressedEverywhere = (email: string) => {
    const at = everywhere(email);
    return at.ses !== undefined && at.sendgrid && at.postmark.length > 0 && at.mailgun.length > 0 && at.resend;
  };
  /** Held by none of the five. */
  const removedEverywhere = (email: string) => {
    const at = everywhere(email);
    return at.ses === undefined && !at.sendgrid && at.mailgun.length === 0 && !at.resend && at.postmark.length === 0;
  };

  it('a complaint by webhook: SES COMPLAINT, a SendGrid global unsubscribe, Postmark in every configured stream, Mailgun complaints in every domain, Resend', async () => {
    const email = 'complainer@example.com';
    await send('sendgrid', 'complaint', email);
    await syncUntil(() => {
      const at = everywhere(email);
      return (
        at.ses !== undefined &&
        at.sendgrid &&
        at.postmark.length > 0 &&
        at.mailgun.length === fakes.mailgun.domains.length &&
        at.resend
      );
    });
    expect(everywhere(email)).toEqual({
      ses: 'COMPLAINT',
      sendgrid: true,
      postmark: ['outbound'],
      mailgun: fakes.mailgun.domains.map((d) => `complaints@${d}`),
      resend: true,
    });
  });

  it('a group-7 unsubscribe reaches SendGrid group 7 and Postmark broadcast, and nothing global', async () => {
    const email = 'grouped@example.com';
    await send('sendgrid', 'unsubscribe', email, { topic: '7' });
    await syncUntil(
      () =>
        fakes.sendgrid.group(7).includes(email) && fakes.postmark.stream('broadcast').some((e) => e.email === email),
    );
    // Let every other provider's message run too, then check nothing global was written anywhere.
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    expect(everywhere(email)).toEqual({
      ses: undefined,
      sendgrid: false,
      postmark: ['broadcast'],
      mailgun: [],
      resend: false,
    });
  });

  it('429 with Retry-After: 2 three times: pushed afterwards, and no call before the time named', async () => {
    const email = 'limited@example.com';
    fakes.sendgrid.clearCalls();
    fakes.sendgrid.rateLimit(3, { 'Retry-After': '2' });
    await send('postmark', 'hard_bounce', email);
    await syncUntil(() => everywhere(email).sendgrid, 20_000);
    // A 429 pushed nothing: the message comes back fresh and pushes again, without asking first.
    const calls = fakes.sendgrid.calls;
    expect(calls.map((c) => `${c.method} ${c.status}`)).toEqual(['POST 429', 'POST 429', 'POST 429', 'POST 201']);
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.at - calls[i - 1]!.at).toBeGreaterThanOrEqual(2000);
  }, 30_000);

  it('a fake down for 20 s: everything is pushed after it recovers', async () => {
    const emails = ['down1@example.com', 'down2@example.com'];
    const recovered = fakes.resend.down(20_000);
    const start = Date.now();
    for (const email of emails) await send('mailgun', 'hard_bounce', email);
    await syncUntil(() => emails.every((e) => everywhere(e).resend), 60_000);
    expect(Date.now() - start).toBeGreaterThanOrEqual(20_000);
    await recovered;
    for (const email of emails)
      expect(everywhere(email)).toMatchObject({ ses: 'BOUNCE', sendgrid: true, postmark: ['outbound'], resend: true });
  }, 75_000);

  it('a reactivation removes the address everywhere', async () => {
    const email = 'complainer@example.com';
    const cli = await ratchet(
      stack.cliEnv(),
      'suppressions',
      'reactivate',
      email,
      '--reason',
      'asked',
      '--actor',
      'ops',
    );
    expect(cli).toMatchObject({ code: 0 });
    await stack.sync!.sweep(Date.now() + FAST_PATH_GRACE_MS + 1);
    await syncUntil(() => removedEverywhere(email));
    const record = await stack.record(email);
    for (const provider of ['ses', 'sendgrid', 'mailgun', 'resend', 'postmark'])
      expect(record!.sync[provider]).toMatchObject({ lists: [] });
  });

  it('a reactivation by the CLI reaches all five in under 10 s: it finds the sync queue by name on SQS_ENDPOINT, with no sweep', async () => {
    const email = 'reversal@example.com';
    await send('mailgun', 'hard_bounce', email);
    await syncUntil(() => suppressedEverywhere(email));
    // Only what an operator sets for a local endpoint: the providers, no SYNC_QUEUE_URL.
    const env = stack.cliEnv({ SYNC_PROVIDERS: fakes.env.SYNC_PROVIDERS! });
    expect(env).not.toHaveProperty('SYNC_QUEUE_URL');
    const start = Date.now();
    const cli = await ratchet(env, 'suppressions', 'reactivate', email, '--reason', 'asked', '--actor', 'ops');
    expect(cli).toMatchObject({ code: 0, err: '' });
    await syncUntil(() => removedEverywhere(email), 10_000);
    expect(Date.now() - start).toBeLessThan(10_000);
  });

  it("a reactivation by the CLI reaches all five in under 10 s through .data/local.json alone: the running npm start's sync queue and providers", async () => {
    const email = 'reversal-local@example.com';
    await send('mailgun', 'hard_bounce', email);
    await syncUntil(() => suppressedEverywhere(email));
    // What `npm start` writes (this harness runs without the file): no variable names a queue or a provider.
    const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-local-json-'));
    try {
      writeState(dataDir, stack.localState());
      const start = Date.now();
      const cli = await ratchet(
        { RATCHET_DATA_DIR: dataDir, AWS_REGION: 'us-east-1' },
        'suppressions',
        'reactivate',
        email,
        '--reason',
        'asked',
        '--actor',
        'ops',
      );
      expect(cli).toMatchObject({ code: 0, err: '' });
      await syncUntil(() => removedEverywhere(email), 10_000);
      expect(Date.now() - start).toBeLessThan(10_000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const cliEnv = () =>
    stack.cliEnv({
      ...fakes.env,
      TOPIC_ALIASES: ALIASES,
      SYNC_QUEUE_URL: stack.sync!.queueUrl,
      SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl,
    });

  it('sync status: pending per provider, failed in the dead letters, lastSuccessAt; sync retry redrives a dead letter', async () => {
    const email = 'refused@example.com';
    fakes.resend.script(
      { status: 401, body: { statusCode: 401, name: 'validation_error', message: 'API key is invalid' } },
      1,
    );
    clock += 1000;
    expect(
      await stack.post('sendgrid', findDemoSigner('sendgrid')!.sign('hard_bounce', email, stack.demo.sendgrid!, clock)),
    ).toMatchObject({ status: 200 });
    await stack.drain();
    let status = JSON.parse((await ratchet(cliEnv(), 'sync', 'status', '--json')).out);
    expect(status.providers.resend).toMatchObject({ pending: 1, failed: 0 });
    await syncUntil(() => everywhere(email).ses !== undefined && everywhere(email).mailgun.length > 0);
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    status = JSON.parse((await ratchet(cliEnv(), 'sync', 'status', '--json')).out);
    expect(status.providers.resend).toMatchObject({ pending: 0, failed: 1 });
    expect(status.providers.ses).toMatchObject({ pending: 0, failed: 0, lastSuccessAt: expect.any(Number) });
    expect(everywhere(email).resend).toBe(false);

    const retry = await ratchet(cliEnv(), 'sync', 'retry');
    expect(retry).toMatchObject({ code: 0, out: 'moved 1 sync dead letters back to the sync queue' });
    await syncUntil(() => everywhere(email).resend);
    status = JSON.parse((await ratchet(cliEnv(), 'sync', 'status', '--json')).out);
    expect(status.providers.resend).toMatchObject({ pending: 0, failed: 0 });
    expect((await stack.record(email))!.sync.resend.failed).toBeUndefined();
  });

  it('reconcile finds seeded drift both ways, --apply repairs it, and a second run is clean', async () => {
    const env = cliEnv();
    const clean = await ratchet(env, 'sync', 'reconcile', '--json');
    expect(JSON.parse(clean.out).providers.mailgun).toEqual({
      missingAtProvider: [],
      missingInRatchet: [],
      informational: [],
      refused: [],
    });
    expect(clean.code).toBe(0);

    // Only at the provider: a Mailgun bounce, a SendGrid spam report, a SendGrid group-7 entry (a topic), a block (informational).
    const domain = fakes.mailgun.domains[0]!;
    const date = Math.floor((Date.now() - 86_400_000) / 1000) * 1000; // Mailgun dates are RFC 2822, whole seconds
    fakes.mailgun.seed(domain, 'bounces', {
      address: 'mg-only@example.com',
      createdAt: date,
      code: '550',
      error: 'mailbox does not exist',
    });
    fakes.sendgrid.seed('spam_reports', { email: 'sg-spam@example.com', created: Math.floor(date / 1000) });
    fakes.sendgrid.seed('blocks', {
      email: 'blocked@example.com',
      created: Math.floor(date / 1000),
      reason: '421 try later',
    });
    // Only in Ratchet: a suppression whose push never happened (written without the fast path, not swept yet).
    const { DynamoSuppressionStore } = await import('../../lambdas/adapters/dynamodb-suppressions.js');
    await new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable).suppress(
      'ratchet-only@example.com',
      { actor: 'ops', reason: 'seed', at: Date.now() },
    );

    const found = await ratchet(env, 'sync', 'reconcile', '--json');
    expect(found.code).toBe(1);
    const providers = JSON.parse(found.out).providers;
    expect(providers.mailgun.missingInRatchet).toEqual([
      { email: 'mg-only@example.com', list: `bounces@${domain}`, reason: expect.stringContaining('550'), date },
    ]);
    expect(providers.mailgun.missingAtProvider).toEqual([{ email: 'ratchet-only@example.com', list: 'global' }]);
    expect(providers.sendgrid.missingInRatchet).toEqual([
      expect.objectContaining({ email: 'sg-spam@example.com', list: 'spam_reports' }),
    ]);
    expect(providers.sendgrid.informational).toEqual([
      expect.objectContaining({ email: 'blocked@example.com', list: 'blocks' }),
    ]);
    for (const p of ['ses', 'postmark', 'resend'])
      expect(providers[p].missingAtProvider).toEqual([{ email: 'ratchet-only@example.com', list: 'global' }]);

    const sgOnly = await ratchet(env, 'sync', 'reconcile', '--provider', 'sendgrid', '--json');
    expect(Object.keys(JSON.parse(sgOnly.out).providers)).toEqual(['sendgrid']);
    expect(await ratchet(env, 'sync', 'reconcile', '--provider', 'sparkpost')).toMatchObject({ code: 2 });

    const applied = await ratchet(env, 'sync', 'reconcile', '--apply');
    expect(applied.code).toBe(0);
    expect(everywhere('ratchet-only@example.com')).toMatchObject({
      ses: 'BOUNCE',
      sendgrid: true,
      postmark: ['outbound'],
      resend: true,
    });
    const imported = await stack.record('mg-only@example.com');
    expect(imported).toMatchObject({ status: 'suppressed', reason: 'hard_bounce' });
    expect(Object.values(imported!.evidence)).toEqual([
      expect.objectContaining({ actor: 'sync:mailgun', occurredAt: date }),
    ]);
    expect(await stack.record('sg-spam@example.com')).toMatchObject({ status: 'suppressed', reason: 'complaint' });
    expect(await stack.record('blocked@example.com')).toBeUndefined();

    // The imports are sync changes too: once pushed to every provider, nothing is left to repair.
    await stack.sync!.sweep(Date.now() + FAST_PATH_GRACE_MS + 1);
    await syncUntil(() => everywhere('mg-only@example.com').resend && everywhere('sg-spam@example.com').resend);
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    const again = await ratchet(env, 'sync', 'reconcile', '--json');
    for (const [p, drift] of Object.entries(
      JSON.parse(again.out).providers as Record<string, { missingAtProvider: unknown[]; missingInRatchet: unknown[] }>,
    )) {
      expect({ p, missingAtProvider: drift.missingAtProvider, missingInRatchet: drift.missingInRatchet }).toEqual({
        p,
        missingAtProvider: [],
        missingInRatchet: [],
      });
    }
    expect(again.code).toBe(0);
  }, 30_000);

  it('a removal the provider refuses (a Postmark spam complaint) is recorded, counted by sync status, reported by reconcile, never retried', async () => {
    const email = 'spammy@example.com';
    // Dated in the past, so the reactivation (now) comes after it.
    clock = Date.now() - 60_000;
    await send('postmark', 'complaint', email);
    await syncUntil(() => everywhere(email).resend && everywhere(email).postmark.length > 0);
    // Postmark's own record of the complaint: it keeps those whatever the API is asked.
    fakes.postmark.seed('outbound', email, 'SpamComplaint');
    expect(
      await ratchet(cliEnv(), 'suppressions', 'reactivate', email, '--reason', 'asked', '--actor', 'ops'),
    ).toMatchObject({ code: 0 });
    await syncUntil(() => !everywhere(email).resend && everywhere(email).ses === undefined);
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    const record = await stack.record(email);
    expect(record!.sync.postmark.refused).toEqual([{ list: 'stream:outbound', why: expect.any(String) }]);
    expect(everywhere(email).postmark).toEqual(['outbound']);
    const status = JSON.parse((await ratchet(cliEnv(), 'sync', 'status', '--json')).out);
    expect(status.providers.postmark).toMatchObject({ pending: 0, refused: 1 });
    const report = JSON.parse((await ratchet(cliEnv(), 'sync', 'reconcile', '--provider', 'postmark', '--json')).out);
    expect(report.providers.postmark.refused).toEqual([{ email, list: 'stream:outbound', why: expect.any(String) }]);
    expect(report.providers.postmark.missingInRatchet.filter((m: { email: string }) => m.email === email)).toEqual([]);
    // Not retried: nothing is pending and no call is made for it again.
    const calls = fakes.postmark.calls.length;
    await stack.sync!.sweep(Date.now() + 10 * FAST_PATH_GRACE_MS);
    for (let i = 0; i < 3; i++) await stack.sync!.pollOnce(0);
    expect(fakes.postmark.calls.length).toBe(calls);
  });

  it('no API key appears in any log line', () => {
    const keys = [
      fakes.sendgrid.apiKey,
      fakes.postmark.serverToken,
      fakes.mailgun.apiKey,
      fakes.resend.apiKey,
      fakes.ses.credentials.secretAccessKey,
    ];
    const text = JSON.stringify(stack.log.lines);
    expect(stack.log.lines.length).toBeGreaterThan(0);
    for (const key of keys) expect(text).not.toContain(key);
  });
});
