/**
 * A slow provider does not set every provider's pace. With SendGrid and Resend at their default rates
 * (10 and 1 calls a second) and changes for both queued, SendGrid's arrive at SendGrid's pace, not at
 * Resend's: the worker hands back a Resend call it would hold past SYNC_MAX_HOLD_MS, sent again delayed
 * until its turn, instead of holding the batch (and every SendGrid call in it) for it. Resend still gets
 * every change, each once, at no more than the 2 requests a second its API allows (the fake answers 429
 * past that), with nothing dead-lettered: waiting is not failing.
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

  beforeAll(async () => {
    fakes = await startProviderFakes();
    // The default rates: nothing raised, as a user runs it.
    stack = await startTestStack({ env: { ...fakes.env, SYNC_PROVIDERS: 'sendgrid,resend' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  it(`${ADDRESSES} suppressions: SendGrid's at SendGrid's pace, Resend's all delivered once at Resend's`, async () => {
    const env = { ...fakes.env, SYNC_PROVIDERS: 'sendgrid,resend' };
    const store = new DynamoSuppressionStore(
      stack.clients.doc,
      stack.config.suppressionTable,
      policyFromSettings(env),
      {
        onSyncChange: stack.sync!.fastPath,
      },
    );
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `pace${i}@example.com`);
    for (const email of emails) await store.suppress(email, { actor: 'ops', reason: 'pace', at: Date.now() });
    const started = Date.now();
    stack.sync!.start();

    const atResend = () => new Set(fakes.resend.entries().map((e) => e.email));
    const atSendgrid = () => emails.filter((e) => sendgridPushes(fakes, e) > 0).length;
    while (atSendgrid() < ADDRESSES && Date.now() - started < 60_000) await sleep(100);
    const sendgridSeconds = (Date.now() - started) / 1000;
    const resendThen = emails.filter((e) => atResend().has(e)).length;
    // SendGrid alone takes ADDRESSES / 10 = 3 s (2.9 s measured); held to Resend's pace it took 19.5 s.
    const resendPace = ADDRESSES / SYNC_DEFAULT_LIMITS.resend.rate;
    expect(atSendgrid()).toBe(ADDRESSES);
    expect(sendgridSeconds).toBeLessThan(resendPace / 3);
    expect(resendThen).toBeLessThan(ADDRESSES);

    while (emails.some((e) => !atResend().has(e)) && Date.now() - started < 3 * resendPace * 1000) await sleep(250);
    expect(emails.filter((e) => !atResend().has(e))).toEqual([]);
    // Each once: a handed-back message is sent again, never pushed twice.
    const resendPosts = fakes.resend.calls.filter((c) => c.method === 'POST' && c.status < 300);
    expect(resendPosts).toHaveLength(ADDRESSES);
    for (const email of emails) expect(sendgridPushes(fakes, email)).toBe(1);
    const status = JSON.parse(
      (await ratchet(stack.cliEnv({ SYNC_PROVIDERS: env.SYNC_PROVIDERS }), 'sync', 'status', '--json')).out,
    );
    expect(status.providers.resend.failed).toBe(0);
    expect(status.providers.sendgrid.failed).toBe(0);
  }, 180_000);
});
