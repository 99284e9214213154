/**
 * `SyncTarget.list` hands its caller every request's page, an empty one included, before the next request.
 * Reconcile relies on it to look at the worker's shared 429 pause between any two list requests: an adapter
 * that reported only pages with entries let a run of empty lists (SendGrid's five read lists on a new
 * account, Mailgun's three per domain) or a page whose rows all lack an address go out unchecked.
 * Every adapter, through the same wiring as reconcile (createSyncTargets), against its fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSyncTargets, readSyncConfig } from '../../../../lambdas/adapters/sync/index.js';
import type { SyncProviderName, SyncTarget } from '../../../../lambdas/core/sync/target.js';
import { type ProviderFakes, startProviderFakes } from '../../../fakes/providers/index.js';

const PROVIDERS: readonly SyncProviderName[] = ['ses', 'sendgrid', 'postmark', 'mailgun', 'resend'];

let fakes: ProviderFakes;
let targets: Map<SyncProviderName, SyncTarget>;

beforeAll(async () => {
  fakes = await startProviderFakes();
  const config = readSyncConfig(fakes.env);
  if (!config.ok) throw new Error(config.problems.join('; '));
  // Pages of two, so a handful of entries spans several pages where the provider pages. The SendGrid fake's
  // account has two unsubscribe groups, so its listing also makes the groups lookup and one read per group.
  targets = new Map(createSyncTargets(config.config, { pageSize: 2 }).map((t) => [t.provider, t] as const));
});
afterAll(() => fakes.close());
beforeEach(() => {
  for (const name of PROVIDERS) fakes[name].clearCalls();
});

/** For each `onPage`, how many requests the fake had seen by then; and the requests in all. */
async function listTimeline(name: SyncProviderName): Promise<{ seenAtPage: number[]; requests: number }> {
  const fake = fakes[name];
  const seenAtPage: number[] = [];
  await targets.get(name)!.list(() => {
    seenAtPage.push(fake.calls.length);
  });
  return { seenAtPage, requests: fake.calls.length };
}

/** One `onPage` after each request and before the next: the k-th sees exactly k requests. */
function expectAPageAfterEveryRequest({ seenAtPage, requests }: { seenAtPage: number[]; requests: number }) {
  expect(requests).toBeGreaterThan(0);
  expect(seenAtPage).toEqual(Array.from({ length: requests }, (_, i) => i + 1));
}

describe('SyncTarget.list reports every request it makes', () => {
  it.each(PROVIDERS)('%s with nothing on its lists: an (empty) page after each request', async (name) => {
    const timeline = await listTimeline(name);
    expectAPageAfterEveryRequest(timeline);
  });

  it.each(PROVIDERS)('%s with entries over several pages: still one page after each request', async (name) => {
    const target = targets.get(name)!;
    for (let i = 0; i < 5; i += 1)
      await target.apply({ op: 'suppress', email: `listed-${name}-${i}@example.com`, reason: 'manual' });
    fakes[name].clearCalls();
    const timeline = await listTimeline(name);
    expectAPageAfterEveryRequest(timeline);
    const listed: string[] = [];
    await target.list((page) => {
      listed.push(...page.map((e) => e.email));
    });
    // Each address once (Mailgun lists it once per sending domain).
    expect(new Set(listed.filter((e) => e.startsWith(`listed-${name}-`))).size).toBe(5);
  });
});
