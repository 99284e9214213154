/** reconcile --apply's pushes at the provider's configured rate, on an injected clock. */
import { describe, expect, it } from 'vitest';
import { SYNC_DEFAULT_LIMITS } from '../../../lambdas/core/sync/settings.js';
import { reconcileGate } from '../../../lib/cli/commands/sync-reconcile-pace.js';

function fakeClock() {
  let now = 1_000_000;
  return { now: () => now, wait: async (ms: number) => void (now += ms), at: () => now };
}

describe('reconcileGate', () => {
  it('N pushes at rate r take (N - 1) / r seconds: the first at once, then one interval apart', async () => {
    const clock = fakeClock();
    const gate = reconcileGate('sendgrid', { rate: 4 }, clock);
    const start = clock.at();
    const calledAt: number[] = [];
    for (let i = 0; i < 5; i++) await gate.run(async () => calledAt.push(clock.at() - start));
    expect(calledAt).toEqual([0, 250, 500, 750, 1000]);
  });

  it('never hands a push back, however far its slot lies ahead (Resend at its default 1 call/s)', async () => {
    const clock = fakeClock();
    const gate = reconcileGate('resend', SYNC_DEFAULT_LIMITS.resend, clock);
    const start = clock.at();
    for (let i = 0; i < 20; i++) await gate.run(async () => undefined);
    expect(clock.at() - start).toBe(19_000);
  });

  it('time already spent between pushes counts: a slow push is not followed by a further wait', async () => {
    const clock = fakeClock();
    const gate = reconcileGate('postmark', { rate: 10 }, clock);
    const start = clock.at();
    await gate.run(async () => clock.wait(300));
    await gate.run(async () => undefined);
    expect(clock.at() - start).toBe(300);
  });
});
