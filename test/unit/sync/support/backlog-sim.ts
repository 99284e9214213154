/**
 * A virtual-clock simulation of the sync queue, the worker copies and the sweeper (the real worker
 * handler, gates and sweep), generalised from slow-provider-backlog.test.ts: several providers at their
 * own rates, several worker copies (each with its own gates, as Lambda copies are) taking batches from one
 * queue at once (holds on different copies and gates overlap, on virtual timers), addresses whose marker is parked (a `sync retry` after a dead letter), and every
 * provider call's start time per copy, to check the rate.
 */
import type { SQSRecord } from 'aws-lambda';
import { MemoryCounters } from '../../../../lambdas/adapters/observability.js';
import { ProviderGate } from '../../../../lambdas/adapters/sync-gate.js';
import { DrainMeter } from '../../../../lambdas/core/sync/lease.js';
import { DEAD_DUE_MS } from '../../../../lambdas/core/sync/ledger.js';
import { encodeSyncMessage } from '../../../../lambdas/core/sync/message.js';
import { drainCeiling, type ProviderLimits } from '../../../../lambdas/core/sync/settings.js';
import { runSweep, type SweepPorts, type SweptItem } from '../../../../lambdas/core/sync/sweep.js';
import type { SyncProviderName } from '../../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../../lambdas/core/topics.js';
import { createSyncWorkerHandler, type SyncWorkerHandler } from '../../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../../support/log.js';
import { MemorySyncLedger } from '../../support/memory-ledger.js';
import { T0 } from '../../suppression/support.js';

export interface SimOptions {
  /** Calls a second per copy, per provider. */
  rates: Partial<Record<SyncProviderName, number>>;
  addresses: number;
  copies?: number;
  /** Addresses (the first `parked` of them) whose marker is parked, their messages put back by `sync retry`. */
  parked?: number;
  /**
   * Which idle copy takes a batch first: `first` (copy 0 whenever it is idle: Lambda may keep routing to one
   * warm container) or `rotate` (each in turn).
   * @default 'rotate'
   */
  pick?: 'first' | 'rotate';
  /** Every first message asks the provider first (`recheck`): a lookup, then the push. */
  recheck?: boolean;
  horizonMs?: number;
  delayCapSeconds?: number;
  sweepMs?: number;
  /** Give up after this much virtual time. */
  limitMs: number;
}

export interface SimRun {
  seconds: number;
  /** Pushes per (address, provider). */
  pushes: Map<string, number>;
  messages: number;
  /** Every call's start, per copy and provider. */
  calls: Map<string, number[]>;
  pushedAt: Map<string, number>;
  lookups: number;
}

const BATCH = 10;
const PAGE = 100;

interface Queued {
  id: number;
  body: string;
  visibleAt: number;
  receives: number;
}

export async function simulate(options: SimOptions): Promise<SimRun> {
  const providers = Object.keys(options.rates) as SyncProviderName[];
  const horizonMs = options.horizonMs ?? 30_000;
  const delayCap = options.delayCapSeconds ?? 90;
  const sweepMs = options.sweepMs ?? 10_000;
  let now = T0;
  const ledger = new MemorySyncLedger(now);
  let queue: Queued[] = [];
  let nextId = 0;
  let messages = 0;
  const enqueue = (body: string, delaySeconds = 0) => {
    messages++;
    queue.push({ id: nextId++, body, visibleAt: now + Math.min(delayCap, delaySeconds) * 1000, receives: 0 });
  };
  const pushes = new Map<string, number>();
  const pushedAt = new Map<string, number>();
  const calls = new Map<string, number[]>();
  const hidden = new Map<string, number>();
  let lookups = 0;
  // Virtual timers: a hold ends when the clock reaches it, and holds on different copies and gates overlap.
  const timers: Array<{ at: number; resolve: () => void }> = [];
  const sleep = (ms: number) => new Promise<void>((resolve) => void timers.push({ at: now + ms, resolve }));
  const copy = (index: number): SyncWorkerHandler => {
    const gates = new Map(
      providers.map((p) => [
        p,
        new ProviderGate(
          p,
          { concurrency: 1, rate: options.rates[p]! },
          {
            now: () => now,
            wait: sleep,
            maxHoldMs: 1_000,
            bookingHorizonMs: horizonMs,
          },
        ),
      ]),
    );
    const started = (provider: SyncProviderName) => {
      const key = `${index}:${provider}`;
      calls.set(key, [...(calls.get(key) ?? []), now]);
    };
    return createSyncWorkerHandler({
      push: {
        ledger,
        providers,
        now: () => now,
        plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
        apply: (provider, operation, ticket) =>
          gates.get(provider)!.run(
            async () => {
              started(provider);
              const key = `${operation.email}:${provider}`;
              pushes.set(key, (pushes.get(key) ?? 0) + 1);
              pushedAt.set(key, now);
              return { lists: ['global'] };
            },
            { ticket },
          ),
        held: async (provider, _operation, ticket) =>
          gates.get(provider)!.run(
            async () => {
              started(provider);
              lookups++;
              return undefined;
            },
            { ticket },
          ),
      },
      queue: {
        hide: async (receiptHandle, seconds) => void hidden.set(receiptHandle, seconds),
        resend: async (body, delaySeconds) => enqueue(body, delaySeconds),
        deadLetter: async () => {
          throw new Error('nothing may be dead-lettered');
        },
      },
      retryHorizonMs: 3_600_000,
      log: recordingLog().log,
      counters: new MemoryCounters(),
    });
  };
  const handlers = Array.from({ length: options.copies ?? 1 }, (_, i) => copy(i));
  const ports: SweepPorts = {
    now: () => now,
    depth: async () => ({ visible: queue.filter((m) => m.visibleAt <= now).length, total: queue.length }),
    send: async (sent) => {
      for (const m of sent) enqueue(encodeSyncMessage(m));
    },
    postpone: async (email, from, to) => {
      const view = ledger.views.get(email);
      if (view?.due === from) view.due = to;
    },
    pending: async (dueBefore, onPage, o) => {
      const due = [...ledger.views]
        .filter(([, v]) => v.due !== undefined && v.due < DEAD_DUE_MS && v.due <= dueBefore)
        .sort((a, b) => a[1].due! - b[1].due!);
      for (let i = 0; i < due.length; i += PAGE) {
        if (o.deadline !== undefined && now >= o.deadline) return { complete: false };
        const page: SweptItem[] = due
          .slice(i, i + PAGE)
          .map(([email, v]) => ({ email, due: v.due!, change: v.change, sync: v.sync }));
        if ((await onPage(page)) === 'stop') return { complete: false };
      }
      return { complete: true };
    },
  };
  // The sweeper's meter, as wired (sync-sweeper.ts).
  const limits = Object.fromEntries(providers.map((p) => [p, { concurrency: 1, rate: options.rates[p]! }]));
  const meter = new DrainMeter(
    drainCeiling(limits as Record<SyncProviderName, ProviderLimits>, providers, options.copies ?? 1),
    providers.length,
  );
  for (let i = 0; i < options.addresses; i++) {
    const email = `u${i}@example.com`;
    ledger.add(email);
    if (i < (options.parked ?? 0)) {
      // Dead-lettered at every provider (markDead), then put back on the queue by `sync retry`.
      const view = ledger.views.get(email)!;
      view.due = DEAD_DUE_MS;
      const failed = { at: now, change: view.change, error: 'SyncTransientError: 503' };
      view.sync = Object.fromEntries(providers.map((p) => [p, { at: now, lists: [], failed }]));
    }
    for (const provider of providers)
      enqueue(encodeSyncMessage({ email, provider, ...(options.recheck ? { recheck: true as const } : {}) }));
  }
  const start = now;
  const wanted = options.addresses * providers.length;
  let nextSweep = now;
  const busy = handlers.map(() => false);
  let rounds = 0;
  const take = (index: number) => {
    const batch = queue
      .filter((m) => m.visibleAt <= now)
      .sort((a, b) => a.visibleAt - b.visibleAt || a.id - b.id)
      .slice(0, BATCH);
    if (batch.length === 0) return;
    const taken = new Set(batch.map((m) => m.id));
    queue = queue.filter((m) => !taken.has(m.id));
    const records = batch.map((m) => {
      m.receives++;
      return {
        messageId: String(m.id),
        receiptHandle: String(m.id),
        body: m.body,
        attributes: { ApproximateReceiveCount: String(m.receives) },
      } as unknown as SQSRecord;
    });
    busy[index] = true;
    void handlers[index]!({ Records: records }).then(({ batchItemFailures }) => {
      for (const { itemIdentifier } of batchItemFailures) {
        const m = batch.find((b) => String(b.id) === itemIdentifier)!;
        queue.push({ ...m, visibleAt: now + (hidden.get(itemIdentifier) ?? 0) * 1000 });
      }
      busy[index] = false;
    });
  };
  // Everything not waiting on a virtual timer runs to completion before a macrotask.
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  while (pushes.size < wanted && now < start + options.limitMs) {
    if (now >= nextSweep) {
      await runSweep(ports, meter, providers, {
        dueBefore: now,
        deadline: now + 40_000,
        intervalMs: sweepMs,
        writeConcurrency: 10,
      });
      nextSweep += sweepMs;
    }
    // Idle copies long-poll the one queue: each takes what is visible, a batch at a time.
    const from = options.pick === 'first' ? 0 : rounds++;
    for (let k = 0; k < handlers.length; k++) {
      const i = (from + k) % handlers.length;
      if (!busy[i]) take(i);
    }
    await settle();
    if (handlers.some((_, i) => !busy[i]) && queue.some((m) => m.visibleAt <= now)) continue;
    const idle = handlers.some((_, i) => !busy[i]);
    const next = Math.min(nextSweep, ...timers.map((t) => t.at), ...(idle ? queue.map((m) => m.visibleAt) : []));
    now = Math.max(now, next);
    for (const timer of timers.filter((t) => t.at <= now)) {
      timers.splice(timers.indexOf(timer), 1);
      timer.resolve();
    }
    await settle();
  }
  return { seconds: (now - start) / 1000, pushes, messages, calls, pushedAt, lookups };
}

/** The closest two calls of one copy to one provider came, in ms. */
export function closestCalls(run: SimRun): number {
  let closest = Number.POSITIVE_INFINITY;
  for (const starts of run.calls.values())
    for (let i = 1; i < starts.length; i++) closest = Math.min(closest, starts[i]! - starts[i - 1]!);
  return closest;
}
