/**
 * `ratchet sync reconcile` at the edges an operator meets with real lists, on the local runtime against
 * the provider fakes: an opt-in whose removal at the provider is still to come, entries the provider
 * keeps that are not addresses Ratchet can key on, a Mailgun tag that is no topic name, and a 429 in the
 * middle of the paging or the repairs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ALIASES = 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter';

interface ProviderDriftJson {
  missingAtProvider: Array<{ email: string; list: string }>;
  missingInRatchet: Array<{ email: string; list: string }>;
  informational: Array<{ email: string; list: string; reason?: string }>;
}

describe('sync reconcile: edges of real lists', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    fakes = await startProviderFakes();
    const config = { ...fakes.env, POSTMARK_STREAMS: 'outbound', TOPIC_ALIASES: ALIASES };
    stack = await startTestStack({ env: config });
    env = stack.cliEnv({
      ...config,
      SYNC_QUEUE_URL: stack.sync!.queueUrl,
      SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl,
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  async function syncUntil(done: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error('sync did not finish in time');
      if ((await stack.sync!.pollOnce(0)) === 0) await sleep(50);
    }
  }

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
});
