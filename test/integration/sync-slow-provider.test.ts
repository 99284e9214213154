/**
 * A slow provider does not set every provider's pace. With SendGrid and Resend at their default rates
 * (10 and 1 requests a second) and changes for both queued, SendGrid's arrive at SendGrid's pace, not at
 * Resend's: the worker hands back a Resend call it would hold past SYNC_MAX_HOLD_MS, sent again delayed
 * until its turn, instead of holding the batch (and every SendGrid call in it) for it. Resend still gets
 * every change, each once, at no more than the 2 requests a second its API allows (the fake answers 429
 * past that), with nothing dead-lettered: waiting is not failing. Its adds ride together in its batch
 * endpoint (sync-batcher.ts), so it takes fewer requests than changes.
 *
 * A reactivation is not stuck behind that line: the gate runs a call that lets mail through again at the
 * first free slot (one interval after the last call), ahead of the suppressions queued for Resend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { SYNC_DEFAULT_LIMITS } from '../../lambdas/core/sync/settings.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';
import { sendgridPushes } from './sync-backfill-support.js';

const ADDRESSES = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a slow provider beside a fast one, at the default rates', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let store: DynamoSuppressionStore;
  const atResend = () => new Set(fakes.resend.entries().map((e) => e.email));
  /** How many times each address was pushed to Resend, over every add request it took (single or batch). */
  const resendPushes = () => {
    const counts = new Map<string, number>();
    for (const push of fakes.resend.pushes()) for (const e of push.emails) counts.set(e, (counts.get(e) ?? 0) + 1);
    return counts;
  };

  beforeAll(async () => {
    fakes = await startProviderFakes();
    // The default rates: nothing raised, as a user runs it.
    const env = { ...fakes.env, SYNC_PROVIDERS: 'sendgrid,resend' };
    stack = await startTestStack({ env });
    store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings(env), {
      onSyncChange: stack.sync!.fastPath,
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  it(`${ADDRESSES} suppressions: SendGrid's at SendGrid's pace, Resend's all delivered once, in fewer requests`, async () => {
    const env = { ...fakes.env, SYNC_PROVIDERS: 'sendgrid,resend' };
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `pace${i}@example.com`);
    for (const email of emails) await store.suppress(email, { actor: 'ops', reason: 'pace', at: Date.now() });
    const started = Date.now();
    stack.sync!.start();

    const atSendgrid = () => emails.filter((e) => sendgridPushes(fakes, e) > 0).length;
    while (atSendgrid() < ADDRESSES && Date.now() - started < 60_000) await sleep(100);
    const sendgridSeconds = (Date.now() - started) / 1000;
    // SendGrid alone takes ADDRESSES / 10 = 3 s (2.9 s measured); held to Resend's pace it took 19.5 s.
    const resendPace = ADDRESSES / SYNC_DEFAULT_LIMITS.resend.rate;
    expect(atSendgrid()).toBe(ADDRESSES);
    expect(sendgridSeconds).toBeLessThan(resendPace / 3);

    while (emails.some((e) => !atResend().has(e)) && Date.now() - started < 3 * resendPace * 1000) await sleep(250);
    expect(emails.filter((e) => !atResend().has(e))).toEqual([]);
    // Each once: a handed-back message is sent again, never pushed twice; and the adds shared requests.
    const pushes = resendPushes();
    for (const email of emails) expect(pushes.get(email)).toBe(1);
    expect(fakes.resend.pushes().length).toBeLessThan(ADDRESSES / 2);
    expect(fakes.resend.calls.filter((c) => c.status === 429)).toEqual([]);
    for (const email of emails) expect(sendgridPushes(fakes, email)).toBe(1);
    const status = JSON.parse(
      (await ratchet(stack.cliEnv({ SYNC_PROVIDERS: env.SYNC_PROVIDERS }), 'sync', 'status', '--json')).out,
    );
    expect(status.providers.resend.failed).toBe(0);
    expect(status.providers.sendgrid.failed).toBe(0);
  }, 180_000);
});

/**
 * A line that lasts: SES, which takes one address a call (no batch endpoint), held to 1 call a second.
 * Resend's adds now ride together, so its line drains as fast as the queue delivers it.
 */
describe("a reactivation during a slow provider's line", () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let store: DynamoSuppressionStore;
  const env = () => ({ ...fakes.env, SYNC_PROVIDERS: 'sendgrid,ses', SYNC_SES_RATE: '1' });
  const atSes = (email: string) => fakes.ses.get(email) !== undefined;
  /** SES's successful PutSuppressedDestination calls: the address and when. */
  const sesPuts = () =>
    fakes.ses.calls
      .filter((c) => c.method === 'PUT' && c.status < 300)
      .map((c) => ({ at: c.at, email: (JSON.parse(c.body) as { EmailAddress: string }).EmailAddress }));

  beforeAll(async () => {
    fakes = await startProviderFakes();
    stack = await startTestStack({ env: env() });
    store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings(env()), {
      onSyncChange: stack.sync!.fastPath,
    });
    stack.sync!.start();
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  it('reaches SES in seconds, not behind the line; the line arrives whole, each once, a call a second', async () => {
    const vip = 'vip@example.com';
    await store.suppress(vip, { actor: 'ops', reason: 'first', at: Date.now() });
    while (!atSes(vip)) await sleep(100);
    const behind = Array.from({ length: ADDRESSES }, (_, i) => `behind${i}@example.com`);
    for (const email of behind) await store.suppress(email, { actor: 'ops', reason: 'backlog', at: Date.now() });
    // The worker takes them into SES's line: 30 s of its rate.
    await sleep(3_000);
    const start = Date.now();
    await store.reactivate(vip, { actor: 'ops', reason: 'asked', at: start });
    while (atSes(vip) && Date.now() - start < 60_000) await sleep(100);
    const seconds = (Date.now() - start) / 1000;
    const stillQueued = behind.filter((e) => !atSes(e)).length;
    // Behind the line it would wait for most of the 30 suppressions queued ahead of it (about 28 s).
    expect(atSes(vip)).toBe(false);
    expect(seconds).toBeLessThan(5);
    expect(stillQueued).toBeGreaterThan(ADDRESSES / 2);
    // The line still arrives whole, each once, at no more than the rate.
    while (behind.some((e) => !atSes(e)) && Date.now() - start < 3 * ADDRESSES * 1000) await sleep(250);
    expect(behind.filter((e) => !atSes(e))).toEqual([]);
    const puts = sesPuts().filter((p) => p.email !== vip);
    for (const email of behind) expect(puts.filter((p) => p.email === email)).toHaveLength(1);
    // One call a second: every call of the line at least an interval (less a little timer slack) after the last.
    const calls = fakes.ses.calls.filter((c) => c.at >= start - 3_000).map((c) => c.at);
    for (let i = 1; i < calls.length; i++) expect(calls[i]! - calls[i - 1]!).toBeGreaterThanOrEqual(950);
  }, 180_000);
});
