/**
 * How `ratchet sync reconcile` paces its provider calls.
 *
 * Pushes (`--apply`) go at the provider's configured rate (SYNC_<PROVIDER>_RATE), through the sync worker's
 * own gate (lambdas/adapters/sync-gate.ts), so a large repair leaves the provider's rate limit to the live
 * worker instead of spending it in a burst that the worker then meets as 429s. One call at a time, and
 * never handed back: the worker hands a late call back to its queue, but an operator's run has no queue,
 * so each push waits for its slot. A 429 is still waited out by the adapter (SYNC_RECONCILE.rateLimitWaits).
 *
 * Every call, list pages included, also honours the worker's shared 429 pause: the provider's
 * `sync#<provider>` row, through the gate's PauseStore port. Before a call the row is read (at most once a
 * second, as the worker's gate reads it) and a pause there is waited out; a 429 reconcile meets is written
 * there, so the worker backs off too. Without it, while both run, each learns the other's 429 with a
 * request of its own, and the provider sees both at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type PauseStore, ProviderGate, SharedPauseReader } from '../../../lambdas/adapters/sync-gate.js';
import type { ProviderLimits } from '../../../lambdas/core/sync/settings.js';
import { type SyncProviderName, SyncRateLimitedError } from '../../../lambdas/core/sync/target.js';

/** The clock a gate reads and waits on; the real one unless a test injects its own. */
export interface PaceClock {
  now?: () => number;
  wait?: (ms: number) => Promise<unknown>;
}

/** One run's view of the shared pauses: where they live, how long a run waits for one, who is told. */
export class SharedPauses {
  private readonly writes = new Set<Promise<void>>();

  constructor(
    readonly store: PauseStore,
    readonly options: {
      /** A shared pause ending later than this is not waited for: the run ends, as on a 429 the adapter would not wait out. */
      maxWaitMs: number;
      /** Told once per pause before waiting it out (the CLI says it on stderr). */
      onWait?: (provider: SyncProviderName, untilMs: number) => void;
    },
  ) {}

  /** A 429 the adapter waits out itself (createSyncTargets' onRateLimitWait): into the row, for the worker. */
  heard(error: SyncRateLimitedError): void {
    const write = this.record(error);
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Never fails the run: the pause is the worker's to honour, and the provider's answer is already waited out. */
  record(error: SyncRateLimitedError): Promise<void> {
    return this.store.pause(error.provider, error.retryAtMs).catch(() => undefined);
  }

  /** Every 429 written: before the command closes its client. */
  async settled(): Promise<void> {
    await Promise.all([...this.writes]);
  }
}

/** One provider's calls in a reconcile run. */
export class ReconcilePace {
  private readonly gate: ProviderGate;
  /** The row read as the worker's gate reads it: at most once a second, later only, a bogus far one ignored. */
  private readonly pause: SharedPauseReader;
  private toldUntilMs = 0;

  constructor(
    readonly provider: SyncProviderName,
    limits: Pick<ProviderLimits, 'rate'>,
    private readonly clock: PaceClock = {},
    private readonly shared?: SharedPauses,
  ) {
    this.gate = new ProviderGate(provider, { concurrency: 1, rate: limits.rate }, clock);
    this.pause = new SharedPauseReader(provider, shared?.store);
  }

  /** A push: once any shared pause has ended, at the provider's rate. A 429 it ends with goes into the row. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.waitOutPause();
    try {
      return await this.gate.run(call);
    } catch (error) {
      await this.heard(error);
      throw error;
    }
  }

  /**
   * Before any other call (a list page): returns once the shared pause has ended. Throws SyncRateLimitedError
   * without waiting when it ends later than `maxWaitMs` from now.
   */
  async waitOutPause(): Promise<void> {
    if (!this.shared) return;
    for (;;) {
      const until = await this.pause.until(this.now());
      const now = this.now();
      if (until <= now) return;
      if (until - now > this.shared.options.maxWaitMs) throw new SyncRateLimitedError(this.provider, until);
      if (until > this.toldUntilMs) {
        this.toldUntilMs = until;
        this.shared.options.onWait?.(this.provider, until);
      }
      await this.wait(until - now);
    }
  }

  /** A call of this provider's that ended in a 429 (the adapter's waits spent): into the row. */
  async heard(error: unknown): Promise<void> {
    if (error instanceof SyncRateLimitedError && error.provider === this.provider) await this.shared?.record(error);
  }

  private now(): number {
    return (this.clock.now ?? Date.now)();
  }

  private wait(ms: number): Promise<unknown> {
    return (this.clock.wait ?? sleep)(ms);
  }
}

/** N pushes through it take at least (N - 1) / rate seconds; with `shared`, none runs during a shared pause. */
export function reconcileGate(
  provider: SyncProviderName,
  limits: Pick<ProviderLimits, 'rate'>,
  clock: PaceClock = {},
  shared?: SharedPauses,
): ReconcilePace {
  return new ReconcilePace(provider, limits, clock, shared);
}
