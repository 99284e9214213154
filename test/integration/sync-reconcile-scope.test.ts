/**
 * Reconcile by scope, on the local runtime against the provider fakes, with Postmark's `broadcast`
 * stream both a global stream (POSTMARK_STREAMS) and a topic (TOPIC_ALIASES): an entry there is
 * explained by the topic's opt-out, is drift in neither direction, and is never imported as a global
 * suppression; an unexplained one becomes that topic's opt-out.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_PATH_GRACE_MS } from '../../lambdas/adapters/suppression-sync-fields.js';
import { createSyncTargets, readSyncConfig } from '../../lambdas/adapters/sync/index.js';
import type { SyncTarget } from '../../lambdas/core/sync/target.js';
import { reconcile as reconcileInProcess } from '../../lib/cli/commands/sync-reconcile.js';
import { Context } from '../../lib/cli/context.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack, syncUntil as syncUntilDone } from './sync-reconcile-support.js';

const ALIASES = 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter';

interface ProviderDriftJson {
  missingAtProvider: Array<{ email: string }>;
  missingInRatchet: Array<{ email: string; list: string }>;
}

describe('reconcile by scope: a Postmark stream that is global and a topic', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ fakes, stack, env } = await startReconcileStack({
      POSTMARK_STREAMS: 'outbound,broadcast',
      TOPIC_ALIASES: ALIASES,
    }));
  });
  afterAll(() => stopReconcileStack({ fakes, stack }));
  const syncUntil = (done: () => boolean, timeoutMs?: number) => syncUntilDone(stack, done, timeoutMs);

  /** Every provider's drift, and the exit code. */
  async function reconcile(): Promise<{ code: number; providers: Record<string, ProviderDriftJson> }> {
    const result = await ratchet(env, 'sync', 'reconcile', '--json');
    return { code: result.code, providers: JSON.parse(result.out).providers };
  }

  const inBroadcast = (email: string) => fakes.postmark.stream('broadcast').some((e) => e.email === email);
  const inOutbound = (email: string) => fakes.postmark.stream('outbound').some((e) => e.email === email);

  function expectNoDrift(providers: Record<string, ProviderDriftJson>): void {
    expect(Object.keys(providers).sort()).toEqual(['mailgun', 'postmark', 'resend', 'sendgrid', 'ses']);
    for (const [p, drift] of Object.entries(providers))
      expect({ p, at: drift.missingAtProvider, in: drift.missingInRatchet }).toEqual({ p, at: [], in: [] });
  }

  it('an address that only left group 7: no drift, --apply leaves it active with the topic opted out, a second run is clean', async () => {
    const email = 'grouped@example.com';
    const request = findDemoSigner('sendgrid')!.sign('unsubscribe', email, stack.demo.sendgrid!, Date.now(), {
      topic: '7',
    });
    expect(await stack.post('sendgrid', request)).toMatchObject({ status: 200 });
    await stack.drain();
    await syncUntil(() => fakes.sendgrid.group(7).includes(email) && inBroadcast(email));
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    // Where the topic opt-out went, and nowhere global.
    expect(inOutbound(email)).toBe(false);
    expect(fakes.sendgrid.list('unsubscribes').some((i) => i.email === email)).toBe(false);

    const first = await reconcile();
    expectNoDrift(first.providers);
    expect(first.code).toBe(0);

    const applied = await ratchet(env, 'sync', 'reconcile', '--apply');
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.out).toContain('applied: 0 pushed, 0 imported');
    const record = await stack.record(email);
    expect(record).toMatchObject({ status: 'active', reasons: [], topics: { newsletter: { status: 'unsubscribed' } } });
    expect(record!.reason).toBeUndefined();
    expect(JSON.stringify(record!.evidence)).not.toContain('manual');
    expect(record!.audit ?? []).toEqual([]);

    const second = await reconcile();
    expectNoDrift(second.providers);
    expect(second.code).toBe(0);
  }, 60_000);

  it('an unexplained entry in the topic stream is imported as the topic’s opt-out, audited, never as a global suppression', async () => {
    const email = 'stray@example.com';
    const date = Date.UTC(2026, 0, 5);
    fakes.postmark.seed('broadcast', email, 'ManualSuppression', date);

    const found = await reconcile();
    expect(found.code).toBe(1);
    expect(found.providers.postmark!.missingInRatchet).toEqual([
      { email, list: 'stream:broadcast', reason: 'ManualSuppression', date },
    ]);
    expect(found.providers.postmark!.missingAtProvider).toEqual([]);
    for (const p of ['ses', 'sendgrid', 'mailgun', 'resend'])
      expect({ p, ...found.providers[p] }).toMatchObject({ p, missingAtProvider: [], missingInRatchet: [] });

    const before = Date.now();
    const applied = await ratchet(env, 'sync', 'reconcile', '--apply');
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.out).toContain('1 imported');
    // The run is recorded per provider, for `sync status` and the console's health page.
    const status = JSON.parse((await ratchet(env, 'sync', 'status', '--json')).out);
    expect(status.providers.postmark.lastReconcile).toEqual({ at: expect.any(Number), drift: 1, applied: true });
    expect(status.providers.postmark.lastReconcile.at).toBeGreaterThanOrEqual(before);
    expect(status.providers.ses.lastReconcile).toMatchObject({ drift: 0, applied: true });
    const record = await stack.record(email);
    expect(record).toMatchObject({
      status: 'active',
      transactionalStatus: 'active',
      reasons: [],
      topics: { newsletter: { status: 'unsubscribed', changedAt: date } },
    });
    expect(record!.audit).toEqual([
      expect.objectContaining({ action: 'suppress', actor: 'sync:postmark', topic: 'newsletter', at: date }),
    ]);

    // The opt-out is a sync change like any other: it reaches SendGrid group 7, and nothing global anywhere.
    await stack.sync!.sweep(Date.now() + FAST_PATH_GRACE_MS + 1);
    await syncUntil(() => fakes.sendgrid.group(7).includes(email));
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    expect(inOutbound(email)).toBe(false);
    expect(fakes.sendgrid.list('unsubscribes').some((i) => i.email === email)).toBe(false);
    expect(fakes.ses.get(email)).toBeUndefined();

    const again = await reconcile();
    expectNoDrift(again.providers);
    expect(again.code).toBe(0);
  }, 60_000);

  it('a global suppression held in both streams is explained there too: no drift, no topic import', async () => {
    const email = 'bounced@example.com';
    const request = findDemoSigner('postmark')!.sign('hard_bounce', email, stack.demo.postmark!, Date.now());
    expect(await stack.post('postmark', request)).toMatchObject({ status: 200 });
    await stack.drain();
    await syncUntil(
      () => inOutbound(email) && inBroadcast(email) && fakes.resend.entries().some((e) => e.email === email),
    );
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    const report = await reconcile();
    expectNoDrift(report.providers);
    expect(report.code).toBe(0);
  }, 60_000);

  it('spilled to disk in many small runs, the comparison finds exactly what one in-memory run finds', async () => {
    for (let i = 0; i < 40; i++) {
      fakes.sendgrid.seed('bounces', { email: `spill-${i}@example.com`, created: 1_700_000_000 + i });
      fakes.postmark.seed(i % 2 ? 'broadcast' : 'outbound', `spill-${i}@example.com`, 'HardBounce');
    }
    const config = readSyncConfig(env);
    if (!config.ok) throw new Error(config.problems.join('; '));
    const targets = createSyncTargets({
      ...config.config,
      postmark: { ...config.config.postmark!, topicStreams: ['broadcast'] },
    });
    const ctx = new Context(env, { out: () => undefined, err: () => undefined, progressTty: false });
    // A temp dir of this test's own, to see that the spills are removed, also after a failure.
    const tmp = await mkdtemp(join(tmpdir(), 'reconcile-tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const whole = await reconcileInProcess(ctx, targets, { apply: false });
      const spilled = await reconcileInProcess(ctx, targets, { apply: false, runBytes: 256 });
      expect(whole.providers.sendgrid!.missingInRatchet).toHaveLength(40);
      expect(whole.providers.postmark!.missingInRatchet).toHaveLength(40);
      expect(spilled).toEqual(whole);
      expect(await readdir(tmp)).toEqual([]);
      // The provider fails after its pages were spilled (runs on disk): the run fails, and leaves nothing behind.
      const sendgrid = targets.find((t) => t.provider === 'sendgrid')!;
      const failing: SyncTarget = {
        provider: 'sendgrid',
        handlesScope: (scope) => sendgrid.handlesScope(scope),
        apply: (operation) => sendgrid.apply(operation),
        list: async (onPage) => {
          await sendgrid.list(onPage);
          throw new Error('connection reset after the last page');
        },
      };
      await expect(reconcileInProcess(ctx, [failing], { apply: false, runBytes: 256 })).rejects.toThrow(
        'connection reset',
      );
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
