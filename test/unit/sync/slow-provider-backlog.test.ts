/**
 * A backlog at one slow provider far longer than a queue delay reaches, drained end to end on a virtual
 * clock: the real worker handler and gate, the real sweep (core/sync/sweep.ts) over an in-memory outbox,
 * and a queue that, like SQS, delays a message at most a fixed cap. Scaled down ten times from the
 * deployment (a 30 s booking horizon and a 90 s delay cap, against 300 s and SQS's 900 s; a 10 s sweep
 * against 60 s) so the test runs in a moment.
 *
 * Sent round the queue each time the delay cap ran out, every message of a backlog of N at rate r went
 * round about N / (2 × cap × r) times (N² / (2 × cap × r) trips in all), and a turn told from the end of
 * the line sent the head of the line to the back. With turns kept and the outbox holding what lies past
 * the horizon, each change costs a bounded number of messages, whatever N, and the provider is kept busy.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { ProviderGate } from '../../../lambdas/adapters/sync-gate.js';
import { DrainMeter } from '../../../lambdas/core/sync/lease.js';
import { DEAD_DUE_MS } from '../../../lambdas/core/sync/ledger.js';
import { encodeSyncMessage, parseSyncMessage } from '../../../lambdas/core/sync/message.js';
import { runSweep, type SweepPorts, type SweptItem } from '../../../lambdas/core/sync/sweep.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { createSyncWorkerHandler } from '../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../support/log.js';
import { MemorySyncLedger } from '../support/memory-ledger.js';
import { T0 } from '../suppression/support.js';

const RATE = 1; // Resend's default: 1 call a second
const HORIZON_MS = 30_000;
const DELAY_CAP_S = 90;
const SWEEP_MS = 10_000;
const BATCH = 10;
const PAGE = 100;

interface Queued {
  id: number;
  body: string;
  visibleAt: number;
  receives: number;
}

async function drain(addresses: number, options: { recheck?: boolean } = {}) {
  let now = T0;
  const ledger = new MemorySyncLedger(now);
  const gate = new ProviderGate(
    'resend',
    { concurrency: 1, rate: RATE },
    {
      now: () => now,
      wait: async (ms) => {
        now += ms;
      },
      maxHoldMs: 1_000,
      bookingHorizonMs: HORIZON_MS,
    },
  );
  let queue: Queued[] = [];
  let nextId = 0;
  let messages = 0;
  const enqueue = (body: string, delaySeconds = 0) => {
    messages++;
    queue.push({ id: nextId++, body, visibleAt: now + Math.min(DELAY_CAP_S, delaySeconds) * 1000, receives: 0 });
  };
  const pushes = new Map<string, number>();
  let lookups = 0;
  const hidden = new Map<string, number>();
  const handler = createSyncWorkerHandler({
    push: {
      ledger,
      providers: ['resend'],
      now: () => now,
      plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
      apply: (_provider, operation, ticket) =>
        gate.run(
          async () => {
            pushes.set(operation.email, (pushes.get(operation.email) ?? 0) + 1);
            return { lists: ['global'] };
          },
          { ticket },
        ),
      // Asked first when a message may follow a lost push: nothing found, so the push follows.
      held: (_provider, _operation, ticket) =>
        gate.run(
          async () => {
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
  const meter = new DrainMeter(RATE);

  // A fast-path burst: every change marked and sent at once.
  for (let i = 0; i < addresses; i++) {
    const email = `u${i}@example.com`;
    ledger.add(email, now);
    enqueue(encodeSyncMessage({ email, provider: 'resend', ...(options.recheck ? { recheck: true as const } : {}) }));
  }
  const start = now;
  let nextSweep = now;
  const end = now + 20 * addresses * 1000;
  while (pushes.size < addresses && now < end) {
    // The workers long-poll: what is visible is taken at once, so a sweep finds only what came due since.
    const visible = queue.filter((m) => m.visibleAt <= now).sort((a, b) => a.visibleAt - b.visibleAt || a.id - b.id);
    if (visible.length === 0 && now >= nextSweep) {
      await runSweep(ports, meter, ['resend'], {
        dueBefore: now,
        deadline: now + 40_000,
        intervalMs: SWEEP_MS,
        writeConcurrency: 10,
      });
      nextSweep += SWEEP_MS;
      continue;
    }
    if (visible.length === 0) {
      now = Math.min(nextSweep, ...queue.map((m) => m.visibleAt));
      continue;
    }
    const batch = visible.slice(0, BATCH);
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
    const { batchItemFailures } = await handler({ Records: records });
    for (const { itemIdentifier } of batchItemFailures) {
      const m = batch.find((b) => String(b.id) === itemIdentifier)!;
      queue.push({ ...m, visibleAt: now + (hidden.get(itemIdentifier) ?? 0) * 1000 });
    }
  }
  const left = queue.filter((m) => pushes.has(parseSyncMessage(m.body).email) === false).length;
  return {
    seconds: (now - start) / 1000,
    pushed: pushes.size,
    pushedTwice: [...pushes.values()].filter((n) => n > 1).length,
    messagesPerChange: messages / addresses,
    lookupsPerChange: lookups / addresses,
    left,
  };
}

describe('a backlog at a slow provider, far longer than the queue can delay a message', () => {
  it('3,000 changes at 1 call/s (50 minutes of the provider’s rate, 33 delay caps): each pushed once, a bounded number of messages each, at the provider’s pace', async () => {
    const n = 3_000;
    const run = await drain(n);
    expect(run.pushed).toBe(n);
    expect(run.pushedTwice).toBe(0);
    // Going round the queue every cap, this backlog cost about n / (2 × cap × rate) ≈ 17 messages a change.
    expect(run.messagesPerChange).toBeLessThan(4);
    // Within 5% of the provider's pace (n / rate seconds), plus the line's head start and two sweeps.
    expect(run.seconds).toBeLessThan((1.05 * n) / RATE + HORIZON_MS / 1000 + (2 * SWEEP_MS) / 1000);
  }, 120_000);

  it('messages that ask first (a lookup, then the push) at the same backlog: the push follows its lookup, each change pushed once', async () => {
    const n = 600;
    const run = await drain(n, { recheck: true });
    expect(run.pushed).toBe(n);
    expect(run.pushedTwice).toBe(0);
    // Sent round after its lookup, a message would look up again at its next turn and never push.
    expect(run.lookupsPerChange).toBeLessThan(1.5);
    expect(run.seconds).toBeLessThan((1.05 * 2 * n) / RATE + HORIZON_MS / 1000 + (2 * SWEEP_MS) / 1000);
  }, 120_000);
});
