/**
 * kill -9 during a burst of 100 complaints, on the real `npm start` entry point (a child process with
 * dynalite persisted in its data dir and the embedded queue, which dies with it), syncing to the HTTP
 * provider fakes in this process. After a restart on the same data dir (and the provider retrying what
 * it got no answer for), every address reaches every fake: the outbox marker was in the same put as
 * the suppression, and the start sweep re-sends whatever the dead queue held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDemoSigner } from '../../lib/demo/index.js';
import { ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { type LocalProcess, spawnLocal, tempDataDir } from './local-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sync survives kill -9 during a burst', () => {
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

  const env = () => ({
    ...fakes.env,
    SYNC_RESEND_RATE: '100',
    SYNC_RESEND_CONCURRENCY: '8',
    SYNC_SES_RATE: '100',
    LOG_LEVEL: 'INFO',
  });
  const urlOf = (ready: string) => /listening on (\S+)/.exec(ready)![1]!;

  const heldEverywhere = (email: string) =>
    fakes.ses.get(email)?.reason === 'COMPLAINT' &&
    fakes.sendgrid.list('unsubscribes').some((i) => i.email === email) &&
    fakes.postmark.stream('outbound').some((e) => e.email === email) &&
    fakes.mailgun.domains.every((d) => fakes.mailgun.list(d, 'complaints').some((e) => e.address === email)) &&
    fakes.resend.entries().some((e) => e.email === email);

  it('every address reaches every fake after a restart', async () => {
    const first = spawnLocal({ dataDir, env: env() });
    children.push(first);
    const url = urlOf(await first.ready(60_000));
    const credentials = ensureDemoCredentials(dataDir).sendgrid!;
    const signer = findDemoSigner('sendgrid')!;
    const emails = Array.from({ length: 100 }, (_, i) => `burst${i}@example.com`);
    const answered = new Set<string>();
    const post = async (base: string, email: string, i: number) => {
      const request = signer.sign('complaint', email, credentials, Date.now() + i);
      const response = await fetch(`${base}/webhooks/sendgrid`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      if (response.status === 200) answered.add(email);
    };
    const burst = emails.map((email, i) =>
      sleep(i * 10)
        .then(() => post(url, email, i))
        .catch(() => undefined),
    );
    while (answered.size < 40) await sleep(10);
    first.child.kill('SIGKILL');
    await Promise.all(burst);
    await first.exited(10_000);
    expect(answered.size).toBeGreaterThanOrEqual(40);
    expect(answered.size).toBeLessThan(100);

    const second = spawnLocal({ dataDir, env: env() });
    children.push(second);
    const again = urlOf(await second.ready(60_000));
    // The provider retries what it got no 2xx for (a duplicate of an answered one is harmless).
    for (const [i, email] of emails.entries()) if (!answered.has(email)) await post(again, email, i);
    expect(answered.size).toBe(100);

    const deadline = Date.now() + 90_000;
    while (!emails.every(heldEverywhere)) {
      if (Date.now() > deadline)
        throw new Error(`not pushed everywhere: ${emails.filter((e) => !heldEverywhere(e)).length} left`);
      await sleep(250);
    }
    const logs = first.stdout() + first.stderr() + second.stdout() + second.stderr();
    for (const key of [
      fakes.sendgrid.apiKey,
      fakes.postmark.serverToken,
      fakes.mailgun.apiKey,
      fakes.resend.apiKey,
      fakes.ses.credentials.secretAccessKey,
    ]) {
      expect(logs).not.toContain(key);
    }
  }, 180_000);
});
