/**
 * TOPIC_ALIASES set after the opt-outs it covers, on the local runtime against the provider fakes, with
 * no command: the sweeper's backfill walks the table again under the new aliases (core/sync/backfill.ts
 * `scopes` marks) and the worker pushes each earlier `newsletter` opt-out to SendGrid group 7 and Postmark
 * `broadcast`. SES joins in the same restart, and its first walk comes before SendGrid's: it marks the
 * opt-outs first, and SendGrid's walk still counts them a new change rather than leaving them to SES's
 * marker (which would send SES alone). What the providers already held is not pushed again, and a
 * restart under the same aliases walks nothing.
 */
import { describe, expect, it } from 'vitest';
import { ratchet, type TestStack } from './harness.js';
import {
  ALIASES,
  heldBy,
  isTopicOnly,
  restartingStacks,
  sendgridPushes,
  settled,
  until,
  writeRecordsBeforeSync,
} from './sync-backfill-support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const COUNT = 100;
const BASE = {
  SYNC_PROVIDERS: 'sendgrid,postmark',
  POSTMARK_STREAMS: 'outbound',
  SYNC_SENDGRID_RATE: '100',
  SYNC_POSTMARK_RATE: '100',
};

/** The aliases set, and SES added: its walk goes first (SYNC_PROVIDER_NAMES order). */
const AFTER = { TOPIC_ALIASES: ALIASES, SYNC_PROVIDERS: 'ses,sendgrid,postmark', SYNC_SES_RATE: '100' };

describe('an alias set after the opt-outs it covers: the backfill pushes them, no command', () => {
  const stacks = restartingStacks('ratchet-alias-backfill-');
  const start = (env: Record<string, string>) => stacks.start({ ...BASE, ...env });
  const stop = stacks.stop;
  const status = async (stack: TestStack) =>
    JSON.parse((await ratchet(stack.cliEnv({ SYNC_PROVIDERS: AFTER.SYNC_PROVIDERS }), 'sync', 'status', '--json')).out)
      .providers as Record<string, { backfill: { state: string; scanned?: number; marked?: number; doneAt?: number } }>;

  it('walks again under the new aliases, pushes only what is missing, and not again on a restart', async () => {
    const fakes = stacks.fakes();
    const seed = await stacks.seed();
    const emails = await writeRecordsBeforeSync(seed, 'alias', COUNT);
    await seed.stop();
    const topicOnly = emails.filter((_, i) => isTopicOnly(i));
    const suppressed = emails.filter((_, i) => !isTopicOnly(i));

    // No aliases: `newsletter` is no provider's scope, so its opt-outs go nowhere; the suppressed go global.
    const before = await start({});
    await until(
      async () =>
        suppressed.every((e) => {
          const held = heldBy(fakes, e, false);
          return held.sendgrid && held.postmark;
        }) && (await settled(before, emails)),
      120_000,
      () => 'the first backfill did not finish',
    );
    await stop(before);
    for (const email of topicOnly) expect(heldBy(fakes, email, true)).toEqual({ sendgrid: false, postmark: false });
    const postmarkCalls = fakes.postmark.calls.length;

    const aliased = await start(AFTER);
    await until(
      () => topicOnly.every((e) => Object.values(heldBy(fakes, e, true)).every(Boolean)),
      120_000,
      () => `${topicOnly.filter((e) => !Object.values(heldBy(fakes, e, true)).every(Boolean)).length} opt-outs missing`,
    );
    await until(
      () => settled(aliased, emails),
      60_000,
      () => 'markers not cleared',
    );
    for (const email of suppressed) expect(fakes.ses.get(email)).toBeDefined();
    const walked = await status(aliased);
    for (const p of ['ses', 'sendgrid', 'postmark'])
      expect(walked[p]!.backfill).toMatchObject({ state: 'done', scanned: COUNT });
    // SES's first walk marked every record; SendGrid's then counted each opt-out a new change, marker or
    // not, which made Postmark lag too, so Postmark's walk found nothing of its own to mark.
    expect(walked.ses!.backfill.marked).toBe(COUNT);
    expect(walked.sendgrid!.backfill.marked).toBe(topicOnly.length);
    expect(walked.postmark!.backfill.marked).toBe(0);
    // Each address went to SendGrid once: the suppressed ones in the first walk, the opt-outs in this one.
    for (const email of emails) expect(sendgridPushes(fakes, email)).toBe(1);
    // Postmark took the opt-outs and nothing else: no suppressed address was pushed there again.
    const again = fakes.postmark.calls.slice(postmarkCalls).filter((c) => c.method === 'POST');
    for (const email of suppressed) expect(again.some((c) => c.body.includes(`"${email}"`))).toBe(false);
    await stop(aliased);

    // The same aliases again: the walk made under them stays done, and nothing is sent.
    const sendgridCalls = fakes.sendgrid.calls.length;
    const restarted = await start(AFTER);
    const after = await status(restarted);
    for (const p of ['ses', 'sendgrid', 'postmark']) expect(after[p]!.backfill).toEqual(walked[p]!.backfill);
    await sleep(1_000);
    expect(fakes.sendgrid.calls.length).toBe(sendgridCalls);
    await stop(restarted);
  }, 300_000);
});
