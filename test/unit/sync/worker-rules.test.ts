/** The worker's pure rules (retry schedule, settings, outbox marker, sweep) and the per-provider gate. */
import { describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../../lambdas/adapters/sync/http.js';
import { type PauseStore, ProviderGate } from '../../../lambdas/adapters/sync-gate.js';
import { applyEvent, DEFAULT_RATCHET_POLICY } from '../../../lambdas/core/suppression/index.js';
import { DEAD_DUE_MS, laggingProviders, markerAfter, syncProjection } from '../../../lambdas/core/sync/ledger.js';
import { encodeSyncMessage, parseSyncMessage } from '../../../lambdas/core/sync/message.js';
import { backoffSeconds, exhausted, pauseSeconds, RETRY_CAP_SECONDS } from '../../../lambdas/core/sync/retry.js';
import { parseSyncProviders, syncSettings } from '../../../lambdas/core/sync/settings.js';
import { sweepMessages } from '../../../lambdas/core/sync/sweep.js';
import { SyncProviderBusyError, SyncRateLimitedError } from '../../../lambdas/core/sync/target.js';
import { ev, T0 } from '../suppression/support.js';

describe('retry schedule', () => {
  it('backs off from 5 s, doubling, capped at 15 min, never below half a step', () => {
    expect([1, 2, 3, 4].map((n) => backoffSeconds(n, 0))).toEqual([3, 5, 10, 20]);
    expect([1, 2, 3, 4].map((n) => backoffSeconds(n, 1))).toEqual([5, 10, 20, 40]);
    expect(backoffSeconds(50, 1)).toBe(RETRY_CAP_SECONDS);
  });

  it('the schedule spans more than an hour before a change is dead-lettered by the default horizon', () => {
    let elapsed = 0;
    let attempts = 0;
    while (!exhausted(0, elapsed * 1000, 3_600_000)) elapsed += backoffSeconds(++attempts, 0);
    expect(elapsed).toBeGreaterThanOrEqual(3600);
    expect(attempts).toBeGreaterThan(5);
  });

  it('a 429 waits until the named time, in whole seconds, at least 1', () => {
    expect(pauseSeconds(10_001, 8_000)).toBe(3);
    expect(pauseSeconds(1_000, 5_000)).toBe(1);
  });
});

describe('settings', () => {
  it('SYNC_PROVIDERS: unset is none; names are checked', () => {
    expect(parseSyncProviders(undefined)).toEqual([]);
    expect(parseSyncProviders(' ses, SendGrid ')).toEqual(['ses', 'sendgrid']);
    expect(() => parseSyncProviders('ses,sparkpost')).toThrow(
      'SYNC_PROVIDERS: "sparkpost" is not one of ses, sendgrid, postmark, mailgun, resend',
    );
    expect(() => parseSyncProviders('ses,ses')).toThrow('SYNC_PROVIDERS names ses twice');
  });

  it('per-provider limits have defaults and are validated by name', () => {
    const s = syncSettings({ SYNC_PROVIDERS: 'resend', SYNC_RESEND_RATE: '0.5' });
    expect(s.limits.resend).toEqual({ concurrency: 1, rate: 0.5 });
    expect(s.retryHorizonMs).toBe(3_600_000);
    expect(() => syncSettings({ SYNC_SES_CONCURRENCY: '0' })).toThrow(/^SYNC_SES_CONCURRENCY must be/);
    expect(() => syncSettings({ SYNC_SENDGRID_RATE: '0' })).toThrow(/^SYNC_SENDGRID_RATE must be/);
  });
});

describe('the outbox marker', () => {
  const providers = ['ses', 'sendgrid'] as const;
  it('a delivery changes no projection; a complaint does', () => {
    const soft = applyEvent(undefined, ev('soft_bounce', T0), DEFAULT_RATCHET_POLICY).record;
    expect(syncProjection(soft)).toBe(syncProjection(undefined));
    const complained = applyEvent(soft, ev('complaint', T0 + 1), DEFAULT_RATCHET_POLICY).record;
    expect(syncProjection(complained)).not.toBe(syncProjection(soft));
  });

  it('is kept while anyone lags, cleared when all caught up, parked when only dead ones are left', () => {
    expect(laggingProviders({ change: 2, sync: { ses: { at: 0, lists: [], change: 2 } } }, providers)).toEqual([
      'sendgrid',
    ]);
    expect(markerAfter({ change: 2, sync: { ses: { at: 0, lists: [], change: 2 } } }, providers)).toBe('keep');
    expect(
      markerAfter(
        { change: 2, sync: { ses: { at: 0, lists: [], change: 2 }, sendgrid: { at: 0, lists: [], change: 2 } } },
        providers,
      ),
    ).toBe('clear');
    const dead = { at: 0, lists: [], change: 1, failed: { at: 0, change: 2, error: 'x' } };
    expect(
      markerAfter({ change: 2, sync: { ses: { at: 0, lists: [], change: 2 }, sendgrid: dead } }, providers),
    ).toEqual({ due: DEAD_DUE_MS });
  });

  it('the sweeper sends one message per lagging provider', () => {
    const items = [
      { email: 'a@x', change: 1, sync: {} },
      { email: 'b@x', change: 3, sync: { ses: { at: 0, lists: [], change: 3 } } },
    ];
    expect(sweepMessages(items, providers)).toEqual([
      { email: 'a@x', provider: 'ses' },
      { email: 'a@x', provider: 'sendgrid' },
      { email: 'b@x', provider: 'sendgrid' },
    ]);
  });

  it('messages round-trip; a bad one is refused', () => {
    expect(parseSyncMessage(encodeSyncMessage({ email: 'a@x', provider: 'ses' }))).toEqual({
      email: 'a@x',
      provider: 'ses',
    });
    expect(() => parseSyncMessage('{"email":"a@x","provider":"sparkpost"}')).toThrow(
      'sync message has no known provider',
    );
    expect(() => parseSyncMessage('nope')).toThrow('sync message is not JSON');
  });
});

describe('ProviderGate', () => {
  it('after a 429 no call is made before the named time, and the pause is shared', async () => {
    let now = 1_000;
    const shared = new Map<string, number>();
    const store: PauseStore = {
      pausedUntil: async (p) => shared.get(p),
      pause: async (p, until) => void shared.set(p, until),
    };
    const gate = new ProviderGate(
      'sendgrid',
      { concurrency: 2, rate: 1000 },
      { shared: store, now: () => now, wait: async () => undefined },
    );
    await expect(gate.run(() => Promise.reject(new SyncRateLimitedError('sendgrid', 3_000)))).rejects.toThrow(
      SyncRateLimitedError,
    );
    expect(shared.get('sendgrid')).toBe(3_000);
    let called = 0;
    now = 2_999;
    await expect(gate.run(async () => ++called)).rejects.toMatchObject({ retryAtMs: 3_000 });
    expect(called).toBe(0);
    now = 3_000;
    await expect(gate.run(async () => ++called)).resolves.toBe(1);

    // A second worker learns the pause from the shared row, without a call of its own.
    const other = new ProviderGate(
      'sendgrid',
      { concurrency: 2, rate: 1000 },
      { shared: store, now: () => now, wait: async () => undefined },
    );
    shared.set('sendgrid', 9_000);
    await expect(other.run(async () => ++called)).rejects.toMatchObject({ retryAtMs: 9_000 });
    expect(called).toBe(1);
  });

  it('ignores a shared pause further ahead than a 429 can set (a row written from a bogus header)', async () => {
    const now = 1_000;
    const shared = new Map([['sendgrid', now + MAX_RATE_LIMIT_PAUSE_MS + 1]]);
    const store: PauseStore = { pausedUntil: async (p) => shared.get(p), pause: async () => undefined };
    const gate = new ProviderGate(
      'sendgrid',
      { concurrency: 2, rate: 1000 },
      { shared: store, now: () => now, wait: async () => undefined },
    );
    await expect(gate.run(async () => 'called')).resolves.toBe('called');
    // At the bound it is a real pause, and holds.
    shared.set('sendgrid', now + MAX_RATE_LIMIT_PAUSE_MS);
    const other = new ProviderGate(
      'sendgrid',
      { concurrency: 2, rate: 1000 },
      { shared: store, now: () => now, wait: async () => undefined },
    );
    await expect(other.run(async () => 'called')).rejects.toMatchObject({ retryAtMs: now + MAX_RATE_LIMIT_PAUSE_MS });
  });

  it('holds calls to the rate and the concurrency', async () => {
    const now = 0;
    const waits: number[] = [];
    const gate = new ProviderGate(
      'resend',
      { concurrency: 1, rate: 2 },
      { now: () => now, wait: async (ms) => void waits.push(ms) },
    );
    let inFlight = 0;
    let maxInFlight = 0;
    const call = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
    };
    await Promise.all([gate.run(call), gate.run(call), gate.run(call)]);
    expect(maxInFlight).toBe(1);
    expect(waits).toEqual([500, 1000]);
  });
  it('hands back a call whose slot lies more than maxHoldMs ahead: one interval apart, without pausing or sharing', async () => {
    let now = 0;
    const shared = new Map<string, number>();
    const store: PauseStore = {
      pausedUntil: async (p) => shared.get(p),
      pause: async (p, until) => void shared.set(p, until),
    };
    const holds: number[] = [];
    const gate = new ProviderGate(
      'resend',
      { concurrency: 1, rate: 1 },
      { shared: store, now: () => now, wait: async (ms) => void holds.push(ms), maxHoldMs: 1_000 },
    );
    let called = 0;
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => gate.run(async () => ++called)));
    // Slot 0 runs, slot 1 s is held (at the bound), the next three are handed back for 2 s, 3 s and 4 s.
    expect(called).toBe(2);
    expect(holds).toEqual([1_000]);
    const back = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason);
    expect(back.every((e) => e instanceof SyncProviderBusyError && e instanceof SyncRateLimitedError)).toBe(true);
    expect(back.map((e) => e.retryAtMs).sort((a, b) => a - b)).toEqual([2_000, 3_000, 4_000]);
    // The provider said nothing: no pause, here or shared.
    expect(gate.pausedUntil).toBe(0);
    expect(shared.size).toBe(0);
    // Handed back while earlier ones are still out: told after the last of them, not at the same time.
    await expect(gate.run(async () => ++called)).rejects.toMatchObject({ retryAtMs: 5_000 });
    // At its time a handed-back call, carrying its turn, finds its slot kept and runs without a hold...
    now = 2_000;
    await expect(gate.run(async () => ++called, { ticket: { turnAtMs: 2_000 } })).resolves.toBe(3);
    expect(holds).toEqual([1_000]);
    // ...while a call with no turn joins the end of the line.
    await expect(gate.run(async () => ++called)).rejects.toMatchObject({ retryAtMs: 6_000 });
  });
});
