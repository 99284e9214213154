/**
 * kill -9 of `npm start` during a backfill: 500 records written before sync existed, `npm start` with
 * SendGrid added, killed while the backfilled changes are being pushed, restarted on the same data
 * dir. The backfill completes (every address at the fake) and no address is pushed twice, not even
 * those whose call was in flight at the kill (the provider applied it, the process died before the
 * answer was recorded): after the restart every pending change is sent with `recheck`, and the worker
 * asks SendGrid (GET /v3/asm/suppressions/global/{email}, a read) before it pushes again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { startTestStack } from './harness.js';
import { type LocalProcess, spawnLocal, tempDataDir } from './local-process.js';
import { isTopicOnly, writeRecordsBeforeSync } from './sync-backfill-support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CONCURRENCY = 4;

describe('kill -9 during a backfill', () => {
  let fakes: ProviderFakes;
  const children: LocalProcess[] = [];
  const dataDir = tempDataDir();

  beforeAll(async () => {
    fakes = await startProviderFakes();
  });
  afterAll(async () => {
    for (const child of children) await child.stop().catch(() => undefined);
    children[0]?.cleanup();
    await fakes?.close();
  });

  it('completes after a restart, and no address is pushed twice to the provider', async () => {
    const seed = await startTestStack({ dataDir, persist: true, env: {} });
    const emails = (await writeRecordsBeforeSync(seed, 'kill', 500)).filter((_, i) => !isTopicOnly(i));
    await seed.stop();

    const env = {
      ...fakes.env,
      SYNC_PROVIDERS: 'sendgrid',
      SYNC_SENDGRID_RATE: '25',
      SYNC_SENDGRID_CONCURRENCY: String(CONCURRENCY),
      LOG_LEVEL: 'INFO',
    };
    const held = () => new Set(fakes.sendgrid.list('unsubscribes').map((i) => i.email));
    const first = spawnLocal({ dataDir, env });
    children.push(first);
    await first.ready(120_000);
    while (held().size < 100) await sleep(50);
    first.child.kill('SIGKILL');
    await first.exited(10_000);
    const atKill = held().size;
    expect(atKill).toBeLessThan(emails.length);

    const second = spawnLocal({ dataDir, env });
    children.push(second);
    await second.ready(120_000);
    const deadline = Date.now() + 240_000;
    while (!emails.every((e) => held().has(e))) {
      if (Date.now() > deadline) throw new Error(`backfill not complete: ${emails.length - held().size} left`);
      await sleep(250);
    }
    const pushes = new Map<string, number>();
    for (const call of fakes.sendgrid.calls) {
      if (call.method !== 'POST' || call.status >= 300) continue;
      for (const email of (JSON.parse(call.body) as { recipient_emails: string[] }).recipient_emails)
        pushes.set(email, (pushes.get(email) ?? 0) + 1);
    }
    const twice = [...pushes].filter(([, n]) => n > 1).map(([email]) => email);
    expect(twice).toEqual([]);
    expect(pushes.size).toBe(emails.length);
    // The restart asked before pushing: the lookups are reads, never counted as pushes above.
    const lookups = fakes.sendgrid.calls.filter(
      (c) => c.method === 'GET' && c.path.startsWith('/v3/asm/suppressions/global/'),
    );
    expect(lookups.length).toBeGreaterThan(0);
  }, 420_000);
});
