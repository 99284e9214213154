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
 * backlog would drain everywhere at the slowest provider's pace. The slot is reserved for the message
 * handed back: the worker sends it again delayed until then, carrying the slot as its `turn`, and the
 * gate runs it at that turn, ahead of calls that came later. So the line is first come, first served,
 * and each message goes round the queue once, however long the line.
 *
 * Slots are reserved at most `bookingHorizonMs` ahead (SQS delays a message at most 15 minutes). Past
 * that the call is handed back with no slot (SyncProviderBacklogError) and a time one interval after
 * the last such: the change waits in the outbox, and the sweeper sends it again then. A backlog far
 * longer than the horizon thus costs one write per change, not a trip round the queue every 15 minutes.
 * Every call, reserved or not, runs at least one interval after the one before, so a turn that comes
 * back late never adds to the rate.
 *
 * An `urgent` call (one that lets mail through again: a reactivation, a topic opt-in; someone is waiting
 * on it) runs at the first such spaced time, ahead of the line, rather than behind a backlog of
 * suppressions; it may be held one interval longer than other calls, so a lone one always finds that
 * slot, and a turn it lands on is pushed to the line's end. It never adds to the rate either. So does
 * the next call of a message whose first call has run (a push after its lookup, a second operation).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallTicket } from '../core/sync/ask-first.js';
import type { ProviderLimits } from '../core/sync/settings.js';
import {
  SyncProviderBacklogError,
  SyncProviderBusyError,
  type SyncProviderName,
  SyncRateLimitedError,
} from '../core/sync/target.js';
import { MAX_RATE_LIMIT_PAUSE_MS } from './sync/http.js';

export interface PauseStore {
  pausedUntil(provider: SyncProviderName): Promise<number | undefined>;
  pause(provider: SyncProviderName, untilMs: number): Promise<void>;
}

const SHARED_READ_MS = 1000;

/**
 * A provider's shared pause as one process knows it: the row read at most once a second, and only ever
 * moving later. A row further ahead than any 429 can set (rateLimitedUntil) was written before that bound,
 * from a bogus header: honoured, it would stop the provider for good, since the row only moves forward.
 * The gate reads it before each call; so does `ratchet sync reconcile` (lib/cli/commands/sync-reconcile-pace.ts).
 */
export class SharedPauseReader {
  private untilMs = 0;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly provider: SyncProviderName,
    private readonly store?: PauseStore,
  ) {}

  /** Epoch ms until which the provider is paused, as last read or learnt (0: never paused). */
  get current(): number {
    return this.untilMs;
  }

  /** The pause as of `now`, reading the row when the last read is a second old. A failed read keeps what is known. */
  async until(now: number): Promise<number> {
    if (this.store && now - this.readAt >= SHARED_READ_MS) {
      this.readAt = now;
      const row = await this.store.pausedUntil(this.provider).catch(() => undefined);
      if (row !== undefined && row <= now + MAX_RATE_LIMIT_PAUSE_MS) this.learn(row);
    }
    return this.untilMs;
  }

  /** A pause this process met itself (a 429): later only. */
  learn(untilMs: number): void {
    if (untilMs > this.untilMs) this.untilMs = untilMs;
  }
}

export class ProviderGate {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  /** The end of the line: the first slot nobody holds. */
  private nextSlotMs = 0;
  /** The latest slot a call ran (or is held for): the next runs at least one interval later. */
  private lastRunMs = Number.NEGATIVE_INFINITY;
  /** The latest time handed to a change sent to the outbox: the next is told one interval later. */
  private deferredUntilMs = 0;
  /** When the latest call started (or is held to start): slots are reserved before a place in flight is. */
  private lastStartMs = Number.NEGATIVE_INFINITY;
  private readonly shared: SharedPauseReader;

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
      /**
       * How far ahead slots are reserved for calls handed back; later, SyncProviderBacklogError reserves none.
       * @default Infinity (every call handed back gets a slot)
       */
      bookingHorizonMs?: number;
    } = {},
  ) {
    this.shared = new SharedPauseReader(provider, options.shared);
  }

  /**
   * Runs `call` when the limits allow. Throws without calling: SyncRateLimitedError while paused,
   * SyncProviderBusyError (a slot reserved at its time) when its slot lies more than `maxHoldMs` ahead,
   * SyncProviderBacklogError (none reserved) when that is more than `bookingHorizonMs` ahead. `ticket`:
   * the turn reserved for this message when it was handed back before; used (and cleared) by this call.
   * `urgent`: ahead of the line when a slot within the hold is free.
   */
  async run<T>(call: () => Promise<T>, options: { ticket?: CallTicket; urgent?: boolean } = {}): Promise<T> {
    await this.assertNotPaused();
    // The slot is taken before waiting for a place in flight, so the hold is known up front.
    const slot = this.reserve(this.now(), options.ticket, options.urgent === true);
    if (options.ticket) options.ticket.started = true;
    await this.acquire();
    try {
      // A call that waited for a place in flight past its slot starts one interval after the last start,
      // not at once: calls stalled together at the provider answer together, and those waiting behind
      // them would otherwise all start at that moment.
      const now = this.now();
      const start = Math.max(slot, now, this.lastStartMs + 1000 / this.limits.rate);
      this.lastStartMs = start;
      const hold = start - now;
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

  /** The slot this call runs at, taken; or the hand-back thrown. */
  private reserve(now: number, ticket: CallTicket | undefined, urgent: boolean): number {
    const interval = 1000 / this.limits.rate;
    const maxHold = this.options.maxHoldMs ?? Number.POSITIVE_INFINITY;
    const horizon = this.options.bookingHorizonMs ?? Number.POSITIVE_INFINITY;
    const spaced = this.lastRunMs + interval;
    const turn = ticket?.turnAtMs;
    if (ticket) ticket.turnAtMs = undefined;
    // A turn further ahead than any this gate hands out is not one of ours (a clock apart): the line decides.
    if (turn !== undefined && turn - now <= horizon + maxHold) {
      if (turn - now > maxHold) throw new SyncProviderBusyError(this.provider, turn);
      const slot = Math.max(now, turn, spaced);
      if (slot - now <= maxHold) return this.ran(slot);
      // Late, and the slots near it are taken: it joins the line like a new call.
    }
    // One interval past the hold: every other call is held at most `maxHold`, so a lone urgent call, or the
    // next call of a message already under way, always finds its slot within it. A run of urgent ones (a
    // bulk reactivation) fills it, and the rest join the line.
    const next = urgent || ticket?.started === true;
    if (next && spaced - now <= maxHold + interval) return this.ran(Math.max(now, spaced));
    const slot = Math.max(now, this.nextSlotMs, spaced);
    if (slot - now > horizon) {
      this.deferredUntilMs = Math.max(slot - horizon, this.deferredUntilMs + interval);
      throw new SyncProviderBacklogError(this.provider, this.deferredUntilMs);
    }
    this.nextSlotMs = slot + interval;
    if (slot - now > maxHold) throw new SyncProviderBusyError(this.provider, slot);
    return this.ran(slot);
  }

  private ran(slot: number): number {
    this.lastRunMs = Math.max(this.lastRunMs, slot);
    return slot;
  }

  /** Epoch ms until which calls are held (0 when not paused), as this worker knows it. */
  get pausedUntil(): number {
    const until = this.shared.current;
    return until > this.now() ? until : 0;
  }

  async pause(untilMs: number): Promise<void> {
    if (untilMs <= this.shared.current) return;
    this.shared.learn(untilMs);
    await this.options.shared?.pause(this.provider, untilMs).catch(() => undefined);
  }

  private async assertNotPaused(): Promise<void> {
    const now = this.now();
    const until = await this.shared.until(now);
    if (until > now) throw new SyncRateLimitedError(this.provider, until);
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
