/**
 * A topic opt-out never becomes a global suppression at SendGrid, on the local runtime against the
 * provider fakes, with TOPIC_ALIASES naming a SendGrid group the account does not have (a typo, or a
 * group deleted since). SendGrid puts an add into such a group on its global unsubscribes, and so does
 * its fake (the last test shows it): the worker must refuse the push instead, show it in `sync status`,
 * and leave every other provider's push alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack, syncUntil as syncUntilDone } from './sync-reconcile-support.js';

const MISSING = 999;
const ALIASES = `sendgrid:group:${MISSING}=newsletter,postmark:stream:broadcast=newsletter`;

describe('sync: a topic aliased to a SendGrid group that does not exist', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;
  let clock = Date.now();

  beforeAll(async () => {
    ({ fakes, stack, env } = await startReconcileStack({ TOPIC_ALIASES: ALIASES }));
  });
  afterAll(() => stopReconcileStack({ fakes, stack }));

  const syncUntil = (done: () => boolean) => syncUntilDone(stack, done);
  const sendgridGlobal = () => fakes.sendgrid.list('unsubscribes').map((i) => i.email);
  const inBroadcast = (email: string) => fakes.postmark.stream('broadcast').some((e) => e.email === email);

  async function webhook(kind: 'unsubscribe' | 'complaint', email: string, topic?: string): Promise<void> {
    clock += 1000;
    const request = findDemoSigner('sendgrid')!.sign(
      kind,
      email,
      stack.demo.sendgrid!,
      clock,
      topic ? { topic } : undefined,
    );
    expect(await stack.post('sendgrid', request)).toMatchObject({ status: 200 });
    await stack.drain();
  }

  async function status(): Promise<Record<string, { pending: number; failed: number }>> {
    const result = await ratchet(env, 'sync', 'status', '--json');
    expect(result.code).toBe(0);
    return JSON.parse(result.out).providers;
  }

  it('the opt-out reaches no global list at SendGrid: refused, dead-lettered and shown by sync status; Postmark broadcast still gets it', async () => {
    const email = 'left-one-topic@example.com';
    await webhook('unsubscribe', email, String(MISSING));
    await syncUntil(() => inBroadcast(email));
    // Let every provider's message run, the refused one included.
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);

    expect(sendgridGlobal()).toEqual([]);
    expect(fakes.sendgrid.pushes()).toEqual([]);
    expect(fakes.sendgrid.calls.filter((c) => c.method === 'POST')).toEqual([]);
    // Nothing global anywhere else either: a topic opt-out is pushed to the topic's scopes only.
    expect(fakes.ses.get(email)).toBeUndefined();
    expect(fakes.resend.entries().some((e) => e.email === email)).toBe(false);
    expect(fakes.postmark.stream('outbound').some((e) => e.email === email)).toBe(false);

    const providers = await status();
    expect(providers.sendgrid).toMatchObject({ pending: 0, failed: 1 });
    for (const other of ['ses', 'postmark', 'mailgun', 'resend'])
      expect({ other, ...providers[other] }).toMatchObject({ other, pending: 0, failed: 0 });

    const record = await stack.record(email);
    expect(record).toMatchObject({ status: 'active', topics: { newsletter: { status: 'unsubscribed' } } });
    const failed = (record!.sync.sendgrid as { failed?: { error: string } }).failed;
    expect(failed?.error).toContain(`group ${MISSING}`);
    expect(failed?.error).toContain('global unsubscribes');
    expect(failed?.error).not.toContain(email);
  });

  it('SendGrid still takes what it should: a complaint afterwards is a global unsubscribe there', async () => {
    const email = 'complained-later@example.com';
    await webhook('complaint', email);
    await syncUntil(() => sendgridGlobal().includes(email) && fakes.postmark.stream('outbound').length > 0);
    expect(sendgridGlobal()).toEqual([email]);
  });

  it('reconcile says the aliased group is not a list SendGrid has, and finishes for every provider', async () => {
    const result = await ratchet(env, 'sync', 'reconcile', '--json');
    expect(result.err).toContain(`note: sendgrid has no list for sendgrid:group:${MISSING} (TOPIC_ALIASES)`);
    const providers = JSON.parse(result.out).providers;
    expect(Object.keys(providers).sort()).toEqual(['mailgun', 'postmark', 'resend', 'sendgrid', 'ses']);
    expect(providers.sendgrid).toMatchObject({ missingAtProvider: [], missingInRatchet: [] });
    expect(result.code).toBe(0);
  });

  it('negative control: the fake itself puts an add into that group on the global unsubscribes', async () => {
    const response = await fetch(`${fakes.sendgrid.url}/v3/asm/groups/${MISSING}/suppressions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fakes.sendgrid.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_emails: ['control@example.com'] }),
    });
    expect(response.status).toBe(201);
    expect(sendgridGlobal()).toContain('control@example.com');
    expect(fakes.sendgrid.pushes().at(-1)).toMatchObject({
      path: '/v3/asm/suppressions/global',
      emails: ['control@example.com'],
    });
  });
});
