/**
 * A backlog at one slow provider far longer than a queue delay reaches, drained end to end on a virtual
 * clock (support/backlog-sim.ts): the real worker handler and gate, the real sweep (core/sync/sweep.ts)
 * over an in-memory outbox, and a queue that, like SQS, delays a message at most a fixed cap. Scaled down ten times from the
 * deployment (a 30 s booking horizon and a 90 s delay cap, against 300 s and SQS's 900 s; a 10 s sweep
 * against 60 s) so the test runs in a moment.
 *
 * Sent round the queue each time the delay cap ran out, every message of a backlog of N at rate r went
 * round about N / (2 × cap × r) times (N² / (2 × cap × r) trips in all), and a turn told from the end of
 * the line sent the head of the line to the back. With turns kept and the outbox holding what lies past
 * the horizon, each change costs a bounded number of messages, whatever N, and the provider is kept busy.
 */
import { describe, expect, it } from 'vitest';
import { closestCalls, simulate } from './support/backlog-sim.js';

const RATE = 1; // Resend's default: 1 call a second
const HORIZON_S = 30;
const SWEEP_S = 10;

describe('a backlog at a slow provider, far longer than the queue can delay a message', () => {
  it('3,000 changes at 1 call/s (50 minutes of the provider’s rate, 33 delay caps): each pushed once, a bounded number of messages each, at the provider’s pace', async () => {
    const n = 3_000;
    const run = await simulate({ rates: { resend: RATE }, addresses: n, limitMs: 20 * n * 1000 });
    expect(run.pushes.size).toBe(n);
    expect([...run.pushes.values()].every((count) => count === 1)).toBe(true);
    expect(closestCalls(run)).toBeGreaterThanOrEqual(1000 / RATE);
    // Going round the queue every cap, this backlog cost 8.6 messages a change, growing with n.
    expect(run.messages / n).toBeLessThan(4);
    // Within 5% of the provider's pace (n / rate seconds), plus the line's head start and two sweeps.
    expect(run.seconds).toBeLessThan((1.05 * n) / RATE + HORIZON_S + 2 * SWEEP_S);
  }, 120_000);

  it('messages that ask first (a lookup, then the push) at the same backlog: the push follows its lookup, each change pushed once', async () => {
    const n = 600;
    const run = await simulate({ rates: { resend: RATE }, addresses: n, recheck: true, limitMs: 20 * n * 1000 });
    expect(run.pushes.size).toBe(n);
    expect([...run.pushes.values()].every((count) => count === 1)).toBe(true);
    // Sent round after its lookup, a message would look up again at its next turn and never push
    // (0 of 600 pushed in 12,000 s, 20 lookups each).
    expect(run.lookups / n).toBeLessThan(1.5);
    expect(run.seconds).toBeLessThan((1.05 * 2 * n) / RATE + HORIZON_S + 2 * SWEEP_S);
  }, 120_000);
});
