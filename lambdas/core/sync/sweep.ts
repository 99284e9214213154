/**
 * One sweep of the outbox: what to send for the pending items found, and the lease written after.
 * Transport-neutral (the sweeper Lambda and the local runtime run the same code through ports).
 *
 * - One message per provider still lagging, per item, and only for items whose lease ran out.
 * - At most one interval of the workers' measured work is put on the queue (lease.ts); past that, due
 *   items are leased again rather than sent, since their messages are most likely still queued.
 * - No new page once the deadline has passed (a sweep killed mid-page leaves items sent but not
 *   leased), and at most `writeConcurrency` lease writes in flight.
 * - A page the queue took only in part: what it took is leased, the rest left due, then the sweep fails.
 */
import { settleWithLimit } from '../pipeline/concurrency.js';
import { type DrainMeter, leaseUntil, sendBudget, wasLeased } from './lease.js';
import { laggingProviders } from './ledger.js';
import { type SyncMessage, SyncSendError } from './message.js';
import { SYNC_PENDING_SHARDS } from './shard.js';
import type { SyncMap } from './state.js';
import type { SyncProviderName } from './target.js';

export interface SweptItem {
  email: string;
  change: number;
  due: number;
  sync: SyncMap;
}

/**
 * `recheck` when the item may have been pushed before without the answer being recorded: its marker is
 * a lease (a sweep sent it before, lease.ts `leased`), or `sentBefore` (the local start sweep, after a
 * restart that lost whatever the workers had in flight).
 */
export function sweepMessages(
  items: readonly { email: string; change: number; sync: SyncMap; due?: number }[],
  providers: readonly SyncProviderName[],
  sentBefore = false,
): SyncMessage[] {
  return items.flatMap((item) => {
    const lagging = laggingProviders(item, providers);
    // Nobody lags but the marker is set (the provider list changed since): one message lets the worker clear it.
    const to = lagging.length > 0 ? lagging : providers.slice(0, 1);
    const recheck = sentBefore || (item.due !== undefined && wasLeased(item.due));
    return to.map((provider) => ({ email: item.email, provider, ...(recheck ? { recheck: true as const } : {}) }));
  });
}

export interface SweepPorts {
  pending(
    dueBefore: number,
    onPage: (items: SweptItem[]) => Promise<undefined | 'stop'>,
    options: { deadline?: number; startShard?: number },
  ): Promise<{ complete: boolean }>;
  postpone(email: string, fromDue: number, toDue: number): Promise<void>;
  /** Throws SyncSendError (message.ts), naming what it did not queue, when the queue took only some. */
  send(messages: readonly SyncMessage[]): Promise<void>;
  /**
   * Messages on the sync queue. `visible`: waiting for a worker, what the workers drain (the meter and
   * the budget read it); `total`: with those in flight and delayed (a message hidden until its retry),
   * everything a new message may wait behind (the lease reads it).
   */
  depth(): Promise<{ visible: number; total: number }>;
  now(): number;
}

export interface SweepOptions {
  dueBefore: number;
  /** No page is read after this (epoch ms). */
  deadline: number;
  /** The time between sweeps: the sweep fills the queue with at most this much of the workers' work. */
  intervalMs: number;
  /**
   * Send every due item whatever the depth (the local start sweep: the embedded queue lost what it held),
   * each with `recheck`: any of them may have been in flight at a provider when the process died.
   */
  all?: boolean;
  writeConcurrency: number;
  random?: () => number;
}

export interface SweepResult {
  sent: number;
  /** Items leased again without a message (the queue was deep). */
  renewed: number;
  /** Every due item was read (false: the deadline or the send budget ended it). */
  complete: boolean;
}

export async function runSweep(
  ports: SweepPorts,
  meter: DrainMeter,
  providers: readonly SyncProviderName[],
  options: SweepOptions,
): Promise<SweepResult> {
  const now = ports.now();
  const { visible, total: depth } = await ports.depth();
  const rate = meter.observe(now, visible);
  const budget = options.all ? Number.POSITIVE_INFINITY : sendBudget(rate, options.intervalMs, visible);
  // The queue already holds an interval's work: lease what fell due, send nothing.
  const renewing = budget === 0;
  let sent = 0;
  let renewed = 0;
  const swept = ports.pending(
    options.dueBefore,
    async (items) => {
      // Leases run from when this page is sent, not from the sweep's start: a sweep may read pages for
      // up to its deadline (40 s), and a lease dated from its start would end that much early.
      const at = ports.now();
      const leases: Array<{ item: SweptItem; until: number }> = [];
      const messages: SyncMessage[] = [];
      let full = false;
      for (const item of items) {
        if (renewing) {
          // Held, not sent: an item never sent (a whole ms) stays one, so its first message asks nothing.
          const until = leaseUntil(at, depth, rate);
          leases.push({ item, until: wasLeased(item.due) ? until : Math.floor(until) });
          renewed++;
          continue;
        }
        const mine = sweepMessages([item], providers, options.all === true);
        if (sent + messages.length + mine.length > budget) {
          full = true;
          break;
        }
        messages.push(...mine);
        leases.push({ item, until: leaseUntil(at, depth + sent + messages.length, rate) });
      }
      const refused = await sendTakingPart(ports, messages);
      sent += messages.length - (refused?.unsent.length ?? 0);
      // An item with a message the queue refused stays due, for the next sweep to send (a lease would hold it back).
      const unsent = new Set(refused?.unsent.map((m) => m.email));
      const writes = leases.filter(({ item, until }) => item.due < until && !unsent.has(item.email));
      const failed = (
        await settleWithLimit(writes, options.writeConcurrency, ({ item, until }) =>
          ports.postpone(item.email, item.due, until),
        )
      ).find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (refused) throw refused;
      if (failed) throw failed.reason;
      // The rest stays due in the index for the next sweep.
      return full ? 'stop' : undefined;
    },
    { deadline: options.deadline, startShard: Math.floor((options.random ?? Math.random)() * SYNC_PENDING_SHARDS) },
  );
  // What was queued counts toward the drain rate, also when a failed page ended the sweep.
  const { complete } = await swept.finally(() => meter.sent(sent));
  return { sent, renewed, complete };
}

/**
 * The page's send. A SyncSendError (the queue took some of the messages) is returned, not thrown, so
 * the items it did queue are leased before the sweep fails: left due, each would get a second message.
 */
async function sendTakingPart(ports: SweepPorts, messages: readonly SyncMessage[]): Promise<SyncSendError | undefined> {
  try {
    await ports.send(messages);
    return undefined;
  } catch (error) {
    if (error instanceof SyncSendError) return error;
    throw error;
  }
}
