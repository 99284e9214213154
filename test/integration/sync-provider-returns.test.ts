/**
 * A provider taken out of SYNC_PROVIDERS and put back, on the local runtime against the provider fakes,
 * with no command. While SendGrid was out, new suppressions reached SES only, and their markers cleared
 * (every configured provider had caught up). Its row still says its walk is done; the sweeper's
 * `sync#configured` row says SendGrid was not configured last time, so its backfill walks again: the new
 * suppressions reach SendGrid, the old ones are not pushed again, and SES is not walked again.
 */
import { describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { FAST_PATH_GRACE_MS } from '../../lambdas/adapters/suppression-sync-fields.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { ratchet } from './harness.js';
import {
  addressOf,
  isTopicOnly,
  restartingStacks,
  sendgridPushes,
  settled,
  until,
  writeRecordsBeforeSync,
} from './sync-backfill-support.js';

const RATES = { SYNC_SES_RATE: '100', SYNC_SENDGRID_RATE: '100' };

describe('a provider that comes back to SYNC_PROVIDERS', () => {
  const stacks = restartingStacks('ratchet-provider-returns-');
  const start = (providers: string) =>
    stacks.start({ SYNC_PROVIDERS: providers, ...(providers.includes('sendgrid') ? RATES : { SYNC_SES_RATE: '100' }) });
  const stop = stacks.stop;
  const atSendGrid = (email: string) =>
    stacks
      .fakes()
      .sendgrid.list('unsubscribes')
      .some((i) => i.email === email);

  it('walks it again: what changed while it was out reaches it, nothing else is pushed again', async () => {
    const fakes = stacks.fakes();
    const seed = await stacks.seed();
    // Suppressions only (no topic opt-outs): every one of them belongs at both providers.
    const old = (await writeRecordsBeforeSync(seed, 'returns-old', 40)).filter((_, i) => !isTopicOnly(i));
    await seed.stop();

    const both = await start('ses,sendgrid');
    await until(
      async () => old.every((e) => atSendGrid(e) && fakes.ses.get(e) !== undefined) && (await settled(both, old)),
      120_000,
      () => 'the first walks did not finish',
    );
    await stop(both);

    // SendGrid out: new suppressions reach SES, and their markers clear.
    const sesOnly = await start('ses');
    const store = new DynamoSuppressionStore(
      sesOnly.clients.doc,
      sesOnly.config.suppressionTable,
      policyFromSettings({}),
    );
    const added = Array.from({ length: 12 }, (_, i) => addressOf('returns-new', i));
    for (const email of added) await store.suppress(email, { actor: 'ops', reason: 'while out', at: Date.now() });
    await sesOnly.sync!.sweep(Date.now() + FAST_PATH_GRACE_MS + 1);
    await until(
      async () => added.every((e) => fakes.ses.get(e) !== undefined) && (await settled(sesOnly, added)),
      60_000,
      () => 'ses did not take the new suppressions',
    );
    await stop(sesOnly);
    expect(added.filter(atSendGrid)).toEqual([]);
    const sesCalls = fakes.ses.calls.length;

    const back = await start('ses,sendgrid');
    await until(
      () => added.every(atSendGrid),
      120_000,
      () => `${added.filter((e) => !atSendGrid(e)).length} missing at sendgrid`,
    );
    await until(
      () => settled(back, [...old, ...added]),
      60_000,
      () => 'markers not cleared',
    );
    for (const email of [...old, ...added]) expect(sendgridPushes(fakes, email)).toBe(1);
    // SES had every one of them, and its walk was not made again.
    expect(fakes.ses.calls.length).toBe(sesCalls);
    const status = JSON.parse(
      (await ratchet(back.cliEnv({ SYNC_PROVIDERS: 'ses,sendgrid' }), 'sync', 'status', '--json')).out,
    ).providers;
    expect(status.sendgrid.backfill).toMatchObject({ state: 'done', scanned: old.length + 4 + added.length });
    await stop(back);
  }, 360_000);
});
