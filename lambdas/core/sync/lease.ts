/**
 * How long the sweeper leaves an item alone after sending its message (the lease), and how much it
 * sends at all. Pure; the clock and the queue's depth are passed in.
 *
 * A message the sweeper sends waits behind everything already queued. The lease must outlast that
 * wait, or the next sweep sends a second copy of a message that is only queued. So the lease is the
 * time the workers need to drain what is ahead of the message, at their measured rate, twice over,
 * plus a grace: `now + 2 · (depth + sent so far) / rate + grace`, at least LEASE.minMs.
 *
 * The rate is measured, not configured: between two sweeps the queue's visible messages went from
 * what the last sweep left to what this one finds (messages hidden until a retry are not work the
 * workers can do now, so they are left out of the rate and the budget, and counted in the lease). While the queue was never empty that drop is the workers'
 * capacity (arrivals from the fast path only make it look slower, so leases err long). When it ran
 * dry, the workers could have done more: the estimate doubles, up to the configured ceiling (the sum
 * of the providers' rates), where it also starts.
 *
 * The sweeper also sends no more than the workers drain in one interval: it fills the queue up to one
 * interval's work and leaves the rest in the index. While the queue is deeper than that, the items it
 * finds due are leased again instead of sent: their messages are most likely still queued, and a lost
 * one is sent once the backlog has drained.
 */

export const LEASE = {
  /** Never shorter: a worker that just received the message has its visibility timeout to finish. */
  minMs: 120_000,
  /** Never longer: a lost message (only the local embedded queue loses them) waits at most this. */
  maxMs: 6 * 3_600_000,
  /** Margin over the estimate: the rate is measured over one interval and may fall. */
  safety: 2,
  graceMs: 60_000,
} as const;

/** Messages a second below which a measured rate is not believed (an idle or stuck queue). */
const FLOOR_RATE = 0.1;

export function leaseUntil(nowMs: number, queuedAhead: number, ratePerSecond: number): number {
  const drainMs = (Math.max(0, queuedAhead) / Math.max(FLOOR_RATE, ratePerSecond)) * 1000;
  return leased(nowMs + Math.min(LEASE.maxMs, Math.max(LEASE.minMs, LEASE.safety * drainMs + LEASE.graceMs)));
}

/**
 * A lease ends half a millisecond past a whole one; the marker a change or the backfill sets is a whole
 * millisecond. So the sweeper tells from the marker alone, in the index it reads anyway, that it sent
 * this item before (or that a worker moved it past a retry): its next message for it may follow a push
 * the provider applied and the worker never recorded, and is sent with `recheck`. A flag of its own
 * would have to be projected into the index, which cannot change once DynamoDB has built it.
 */
export function leased(untilMs: number): number {
  return Math.floor(untilMs) + 0.5;
}

/** Whether the marker is a lease (a message was sent for the item before): see `leased`. */
export function wasLeased(dueMs: number): boolean {
  return !Number.isInteger(dueMs);
}

/** The workers' drain rate, measured from the sync queue's depth at successive sweeps. */
export class DrainMeter {
  private rate: number;
  private last?: { atMs: number; depth: number };

  /**
   * `floor`: the least it believes, whatever the queue showed (one message a second per provider): a
   * queue whose workers did nothing between two sweeps still gets a trickle, so a lost message is never
   * held back by a measurement of idleness.
   */
  constructor(
    private readonly ceiling: number,
    private readonly floor = FLOOR_RATE,
  ) {
    this.rate = ceiling;
  }

  /** Messages a second the workers are believed to push now. */
  get perSecond(): number {
    return this.rate;
  }

  /** Learns from the depth a sweep finds; returns the rate to plan this sweep with. */
  observe(atMs: number, depth: number): number {
    const last = this.last;
    if (last !== undefined && atMs > last.atMs) {
      const drained = ((last.depth - depth) * 1000) / (atMs - last.atMs);
      if (depth > 0) this.rate = Math.min(this.ceiling, Math.max(this.floor, drained));
      else this.rate = Math.min(this.ceiling, Math.max(this.rate * 2, drained));
    }
    this.last = { atMs, depth };
    return this.rate;
  }

  /** The depth the sweep left behind (what it found plus what it sent): the next sample starts here. */
  sent(count: number): void {
    if (this.last) this.last = { ...this.last, depth: this.last.depth + count };
  }
}

/** How many messages a sweep may add: one interval of the workers' work, less what is already queued. */
export function sendBudget(ratePerSecond: number, intervalMs: number, depth: number): number {
  return Math.max(0, Math.floor((ratePerSecond * intervalMs) / 1000) - depth);
}
