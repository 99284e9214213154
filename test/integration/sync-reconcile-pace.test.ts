/**
 * `ratchet sync reconcile --apply` paces its pushes by SYNC_<PROVIDER>_RATE, on the local runtime against
 * the SendGrid fake: N pushes at rate r take at least (N - 1) / r seconds, so a large repair does not
 * spend the provider's rate limit the live worker also needs. Unpaced, six pushes take about 60 ms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { createSyncTargets, readSyncConfig } from '../../lambdas/adapters/sync/index.js';
import type { SyncTarget } from '../../lambdas/core/sync/target.js';
import { reconcile as reconcileInProcess } from '../../lib/cli/commands/sync-reconcile.js';
import { Context } from '../../lib/cli/context.js';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack } from './sync-reconcile-support.js';

const RATE = 10;
const N = 6;
const INTERVAL_MS = 1000 / RATE;

describe('sync reconcile --apply paces its pushes by SYNC_<PROVIDER>_RATE', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ fakes, stack, env } = await startReconcileStack({ SYNC_SENDGRID_RATE: String(RATE) }));
  });
  afterAll(() => stopReconcileStack({ fakes, stack }));

  /** N addresses suppressed in Ratchet and never pushed (the worker is not run): missing at SendGrid. */
  async function missingAtSendGrid(prefix: string): Promise<string[]> {
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable);
    const emails = Array.from({ length: N }, (_, i) => `${prefix}-${i}@example.com`);
    for (const email of emails) await store.suppress(email, { actor: 'ops', reason: 'seed', at: Date.now() });
    return emails;
  }
  const pushedTo = (email: string) => fakes.sendgrid.calls.some((c) => c.method !== 'GET' && c.body.includes(email));

  it(`push k is issued k intervals (1 / r) after the first: ${N} take at least (N - 1) / r`, async () => {
    const emails = await missingAtSendGrid('paced');
    const config = readSyncConfig({ ...env, SYNC_PROVIDERS: 'sendgrid' });
    if (!config.ok) throw new Error(config.problems.join('; '));
    const [sendgrid] = createSyncTargets(config.config);
    // The real adapter against the fake, with the time each push is issued recorded.
    const issuedAt: number[] = [];
    const timed: SyncTarget = {
      provider: 'sendgrid',
      handlesScope: (scope) => sendgrid!.handlesScope(scope),
      list: (onPage) => sendgrid!.list(onPage),
      apply: (operation) => {
        issuedAt.push(performance.now());
        return sendgrid!.apply(operation);
      },
    };
    const ctx = new Context(env, { out: () => undefined, err: () => undefined, progressTty: false });
    const report = await reconcileInProcess(ctx, [timed], { apply: true });
    expect(report).toMatchObject({ pushed: N, failed: 0 });
    expect(emails.filter(pushedTo)).toEqual(emails);
    // The gate keeps a schedule (push k at the first one's slot plus k intervals), not a gap: a push whose
    // timer fired late on a busy machine is followed by a shorter gap, never by more than the rate over the
    // run. It reckons in whole milliseconds (Date.now truncates, up to 1 ms each end) and a timer may fire
    // up to 1 ms early: 3 ms of slack on 500 ms, no more. Unpaced, the six are issued within about 20 ms.
    const SLACK_MS = 3;
    expect(issuedAt[N - 1]! - issuedAt[0]!).toBeGreaterThanOrEqual((N - 1) * INTERVAL_MS - SLACK_MS);
  }, 60_000);

  it(`the command: ${N} pushes at ${RATE}/s, and it takes at least (N - 1) / r seconds`, async () => {
    const emails = await missingAtSendGrid('command');
    const started = performance.now();
    const result = await ratchet(env, 'sync', 'reconcile', '--provider', 'sendgrid', '--apply');
    const took = performance.now() - started;
    expect(result.err).toBe('');
    expect(result).toMatchObject({ code: 0, out: expect.stringContaining(`applied: ${N} pushed`) });
    expect(emails.filter(pushedTo)).toEqual(emails);
    expect(took).toBeGreaterThanOrEqual((N - 1) * INTERVAL_MS);
  }, 60_000);
});
