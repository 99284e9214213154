/**
 * TOPIC_ALIASES set after topic opt-outs exist, on the local runtime against the provider fakes. A
 * recipient left SendGrid group 7 while no alias was set: the opt-out is stored under `sendgrid:group:7` and
 * pushed to group 7 only. Then `sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter` is set:
 * reconcile reads the earlier opt-out as `newsletter`'s, so the group-7 entry is explained (not imported
 * again, dated now), Postmark `broadcast` is found lacking it, `--apply` pushes it there, and a second run
 * is clean. No replay needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack, syncUntil } from './sync-reconcile-support.js';

const ALIASES = 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter';

interface Drift {
  missingAtProvider: Array<{ email: string; list: string }>;
  missingInRatchet: Array<{ email: string; list: string }>;
}

describe('an alias added after the opt-outs it covers', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The runtime (and the opt-out below) without aliases; the CLI later with them.
    ({ fakes, stack, env } = await startReconcileStack({ POSTMARK_STREAMS: 'outbound' }));
  });
  afterAll(() => stopReconcileStack({ fakes, stack }));

  it('reconcile reads the earlier opt-out as the alias’s: pushed to broadcast, never imported again, then clean', async () => {
    const email = 'left-group-7-early@example.com';
    expect(
      await ratchet(env, 'suppressions', 'add', email, '--topic', 'sendgrid:group:7', '--reason', 'asked'),
    ).toMatchObject({ code: 0 });
    await syncUntil(stack, () => fakes.sendgrid.group(7).includes(email));
    for (let i = 0; i < 5; i++) await stack.sync!.pollOnce(0);
    expect(Object.keys((await stack.record(email))!.topics)).toEqual(['sendgrid:group:7']);

    const aliased = { ...env, TOPIC_ALIASES: ALIASES };
    // Listed as newsletter's opt-out, as the client answers it (the alias, or a canonical name it maps).
    for (const topic of ['newsletter', 'postmark:stream:broadcast']) {
      const listed = await ratchet(aliased, 'suppressions', 'list', '--topic', topic);
      expect(listed.out.split('\n').map((line) => JSON.parse(line).email)).toEqual([email]);
    }
    const run = async (...args: string[]) => {
      const result = await ratchet(aliased, 'sync', 'reconcile', '--json', ...args);
      expect(result.err).toBe('');
      return { code: result.code, providers: JSON.parse(result.out).providers as Record<string, Drift> };
    };
    const found = await run('--provider', 'sendgrid');
    expect(found.providers.sendgrid!.missingInRatchet.filter((m) => m.email === email)).toEqual([]);
    const atPostmark = await run('--provider', 'postmark');
    expect(atPostmark.providers.postmark!.missingAtProvider).toContainEqual({
      email,
      list: 'postmark:stream:broadcast',
    });

    expect((await run('--apply')).code).toBe(0);
    expect(fakes.postmark.stream('broadcast').some((e) => e.email === email)).toBe(true);
    // Nothing imported: the record still holds the one opt-out, under the name it was stored under.
    expect(Object.keys((await stack.record(email))!.topics)).toEqual(['sendgrid:group:7']);
    const again = await run();
    expect(again.code).toBe(0);
    for (const drift of Object.values(again.providers)) {
      expect(drift.missingAtProvider.filter((m) => m.email === email)).toEqual([]);
      expect(drift.missingInRatchet.filter((m) => m.email === email)).toEqual([]);
    }
  }, 60_000);
});
