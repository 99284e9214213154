/**
 * Per-provider flow control for the sync worker: at most `concurrency` calls in flight, at most `rate`
 * calls per second, and a pause after a 429 that holds every call to that provider until the time the
 * provider named. The pause is also written to a shared store (a row in the inbox table) and read back
 * at most once a second, so every concurrent worker on AWS honours a 429 that any of them received;
 * without it each Lambda copy would spend its own request learning the same thing.
 *
 * A call whose rate slot lies more than `maxHoldMs` ahead is handed back, not held (SyncProviderBusyError):
 * all providers share one queue and a batch ends with its slowest call, so holding Resend's tenth call
 * of a batch for 9 s at its 1 call/s would hold every other provider's calls in that batch too, and a
 * backlog would drain everywhere at the slowest provider's pace. The worker sends a handed-back message
 * again, delayed until the time named; those times are spaced one interval apart, so the handed-back
 * messages come back at the pace the provider takes them rather than all at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderLimits } from '../core/sync/settings.js';
import { SyncProviderBusyError, type SyncProviderName, SyncRateLimitedError } from '../core/sync/target.js';
import { MAX_RATE_LIMIT_PAUSE_MS } from './sync/http.js';

export interface PauseStore {
  pausedUntil(provider: SyncProviderName): Promise<number | undefined>;
  pause(provider: SyncProviderName, untilMs: number): Promise<void>;
}

const SHARED_READ_MS = 1000;

export class ProviderGate {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private nextSlotMs = 0;
  /** The latest time handed out to a call handed back: the next one is told one interval later. */
  private handedBackUntilMs = 0;
  private pausedUntilMs = 0;
  private sharedReadAt = -Infinity;

  constructor(
    readonly provider: SyncProviderName,
    private readonly limits: ProviderLimits,
    private readonly options: {
      shared?: PauseStore;
      now?: () => number;
      wait?: (ms: number) => Promise<unknown>;
      /**
       * The longest a call is held for its rate slot; a later slot throws SyncProviderBusyError without calling.
       * @default Infinity (every call is held until its slot)
       */
      maxHoldMs?: number;
    } = {},
  ) {}

  /**
   * Runs `call` when the limits allow. Throws without calling: SyncRateLimitedError while paused,
   * SyncProviderBusyError when its rate slot lies more than `maxHoldMs` ahead.
   */
  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.assertNotPaused();
    // The slot is taken before waiting for a place in flight, so the hold is known up front.
    const now = this.now();
    const interval = 1000 / this.limits.rate;
    const slot = Math.max(now, this.nextSlotMs);
    if (slot - now > (this.options.maxHoldMs ?? Number.POSITIVE_INFINITY)) {
      this.handedBackUntilMs = Math.max(slot, this.handedBackUntilMs + interval);
      throw new SyncProviderBusyError(this.provider, this.handedBackUntilMs);
    }
    this.nextSlotMs = slot + interval;
    await this.acquire();
    try {
      const hold = slot - this.now();
      if (hold > 0) await this.wait(hold);
      await this.assertNotPaused();
      return await call();
    } catch (error) {
      if (error instanceof SyncRateLimitedError && error.provider === this.provider) await this.pause(error.retryAtMs);
      throw error;
    } finally {
      this.release();
    }
  }

  /** Epoch ms until which calls are held (0 when not paused), as this worker knows it. */
  get pausedUntil(): number {
    return this.pausedUntilMs > this.now() ? this.pausedUntilMs : 0;
  }

  async pause(untilMs: number): Promise<void> {
    if (untilMs <= this.pausedUntilMs) return;
    this.pausedUntilMs = untilMs;
    await this.options.shared?.pause(this.provider, untilMs).catch(() => undefined);
  }

  private async assertNotPaused(): Promise<void> {
    const now = this.now();
    if (this.options.shared && now - this.sharedReadAt >= SHARED_READ_MS) {
      this.sharedReadAt = now;
      const shared = await this.options.shared.pausedUntil(this.provider).catch(() => undefined);
      // A pause further ahead than any 429 can set (rateLimitedUntil) is a row written before that bound,
      // from a bogus header: honoured, it would stop the provider for good, since the row only moves forward.
      if (shared !== undefined && shared > this.pausedUntilMs && shared <= now + MAX_RATE_LIMIT_PAUSE_MS)
        this.pausedUntilMs = shared;
    }
    if (this.pausedUntilMs > now) throw new SyncRateLimitedError(this.provider, this.pausedUntilMs);
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.limits.concurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private wait(ms: number): Promise<unknown> {
    return (this.options.wait ?? sleep)(ms);
  }
}
