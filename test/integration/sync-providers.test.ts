/**
 * Sync against the HTTP provider fakes (test/fakes/providers: each written from the provider's API
 * reference, checking keys and bodies, paging, answering 429 with Retry-After), on the local runtime
 * with the endpoint overrides pointing at them: the "How to show it", end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { DemoOptions } from '../../lib/demo/types.js';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { FAST_PATH_GRACE_MS } from '../../lambdas/adapters/suppression-sync-fields.js';
import { startProviderFakes, type ProviderFakes } from '../fakes/providers/index.js';
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
      if (Date.now() > deadline) throw new Error('sync did not finish in time');
      if ((await stack.sync!.pollOnce(0)) === 0) await sleep(50);
    }
  }

  const everywhere = (email: string) => ({
    ses: fakes.ses.get(email)?.reason,
    sendgrid: fakes.sendgrid.list('unsubscribes').some((i) => i.email === email),
    postmark: fakes.postmark.streams.filter((s) => fakes.postmark.stream(s).some((e) => e.email === email)),
    mailgun: fakes.mailgun.domains.flatMap((d) => (['bounces', 'complaints', 'unsubscribes'] as const).filter((l) => fakes.mailgun.list(d, l).some((e) => e.address === email)).map((l) => `${l}@${d}`)),
    resend: fakes.resend.entries().some((e) => e.email === email),
  });

  it('a complaint by webhook: SES COMPLAINT, a SendGrid global unsubscribe, Postmark in every configured stream, Mailgun complaints in every domain, Resend', async () => {
    const email = 'complainer@example.com';
    await send('sendgrid', 'complaint', email);
    await syncUntil(() => {
      const at = everywhere(email);
      return at.ses !== undefined && at.sendgrid && at.postmark.length > 0 && at.mailgun.length === fakes.mailgun.domains.length && at.resend;
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
    await syncUntil(() => fakes.sendgrid.group(7).includes(email) && fakes.postmark.stream('broadcast').some((e) => e.email === email));
    // Let every other provider's message run too, then check nothing global was written anywhere.
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    expect(everywhere(email)).toEqual({ ses: undefined, sendgrid: false, postmark: ['broadcast'], mailgun: [], resend: false });
  });

  it('429 with Retry-After: 2 three times: pushed afterwards, and no call before the time named', async () => {
    const email = 'limited@example.com';
    fakes.sendgrid.clearCalls();
    fakes.sendgrid.rateLimit(3, { 'Retry-After': '2' });
    await send('postmark', 'hard_bounce', email);
    await syncUntil(() => everywhere(email).sendgrid, 20_000);
    const calls = fakes.sendgrid.calls.filter((c) => c.method === 'POST');
    expect(calls.map((c) => c.status)).toEqual([429, 429, 429, 201]);
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
    for (const email of emails) expect(everywhere(email)).toMatchObject({ ses: 'BOUNCE', sendgrid: true, postmark: ['outbound'], resend: true });
  }, 75_000);

  it('a reactivation removes the address everywhere', async () => {
    const email = 'complainer@example.com';
    const cli = await ratchet(stack.cliEnv(), 'suppressions', 'reactivate', email, '--reason', 'asked', '--actor', 'ops');
    expect(cli).toMatchObject({ code: 0 });
    await stack.sync!.sweep(Date.now() + FAST_PATH_GRACE_MS + 1);
    await syncUntil(() => {
      const at = everywhere(email);
      return at.ses === undefined && !at.sendgrid && at.mailgun.length === 0 && !at.resend && at.postmark.length === 0;
    });
    const record = await stack.record(email);
    for (const provider of ['ses', 'sendgrid', 'mailgun', 'resend', 'postmark']) expect(record!.sync[provider]).toMatchObject({ lists: [] });
  });

  it('no API key appears in any log line', () => {
    const keys = [fakes.sendgrid.apiKey, fakes.postmark.serverToken, fakes.mailgun.apiKey, fakes.resend.apiKey, fakes.ses.credentials.secretAccessKey];
    const text = JSON.stringify(stack.log.lines);
    expect(stack.log.lines.length).toBeGreaterThan(0);
    for (const key of keys) expect(text).not.toContain(key);
  });
});
