/**
 * A provider added to SYNC_PROVIDERS gets the records whose marker is parked. A change dead-lettered at
 * one provider (or a removal a provider refused) parks its marker: indexed for `sync status`, never due.
 * The backfill must not take that marker for a live one: the sweeper never reads a parked marker as due,
 * so a record the backfill skips for it never reaches the new provider, while `sync status` shows it
 * pending there for good.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { DEAD_DUE_MS } from '../../lambdas/core/sync/ledger.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await sleep(200);
  }
}

describe('backfill of a provider added later, over a parked marker', () => {
  let fakes: ProviderFakes;
  let dataDir: string;
  const stacks: TestStack[] = [];

  beforeAll(async () => {
    fakes = await startProviderFakes();
    dataDir = mkdtempSync(join(tmpdir(), 'ratchet-parked-'));
  });
  afterAll(async () => {
    for (const stack of stacks) await stack.stop().catch(() => undefined);
    await fakes?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a suppression dead-lettered at SES reaches SendGrid once SendGrid is added', async () => {
    const email = 'parked@example.com';
    const first = await startTestStack({ dataDir, persist: true, env: { ...fakes.env, SYNC_PROVIDERS: 'ses' } });
    stacks.push(first);
    // SES refuses for good (a wrong IAM policy): the change is dead-lettered at once and its marker parked.
    fakes.ses.script(
      { status: 403, headers: { 'x-amzn-errortype': 'AccessDeniedException' }, body: { message: 'denied' } },
      5,
    );
    const writer = new DynamoSuppressionStore(
      first.clients.doc,
      first.config.suppressionTable,
      policyFromSettings({}),
      {
        onSyncChange: first.sync!.fastPath,
      },
    );
    await writer.suppress(email, { actor: 'ops', reason: 'complaint', at: Date.now() });
    first.sync!.start();
    await until(async () => (await first.record(email))?.syncDue === DEAD_DUE_MS, 20_000, 'marker parked');
    expect((await first.record(email))?.sync?.ses?.failed).toBeDefined();
    await first.stop();
    stacks.pop();

    const second = await startTestStack({
      dataDir,
      persist: true,
      env: { ...fakes.env, SYNC_PROVIDERS: 'ses,sendgrid' },
    });
    stacks.push(second);
    second.sync!.start();
    const atSendGrid = () => fakes.sendgrid.list('unsubscribes').some((i) => i.email === email);
    await until(
      async () => atSendGrid() && (await second.record(email))?.sync?.sendgrid?.change !== undefined,
      20_000,
      'at sendgrid',
    ).catch(() => undefined);
    const status = JSON.parse(
      (await ratchet(second.cliEnv({ SYNC_PROVIDERS: 'ses,sendgrid' }), 'sync', 'status', '--json')).out,
    );
    expect(status.providers.sendgrid.backfill).toMatchObject({ state: 'done' });
    expect(atSendGrid()).toBe(true);
    expect(status.providers.sendgrid.pending).toBe(0);
    // SES's dead change stays dead (no retry without `sync retry`), and the marker is parked again.
    const record = await second.record(email);
    expect(record?.sync?.ses?.failed).toBeDefined();
    expect(record?.syncDue).toBe(DEAD_DUE_MS);
  }, 90_000);
});
