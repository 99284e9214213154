/**
 * A slow provider does not hold the others. All providers share one queue and a batch ends with its
 * slowest call, so the worker's gate hands back a call whose rate slot lies more than SYNC_MAX_HOLD_MS
 * ahead instead of holding it: the message is sent again, delayed until the slot reserved for it (its
 * turn, one interval after the line's last), and counts as waiting, never as a failure. Without it, a batch with
 * five Resend messages (1 call/s) held the five SendGrid messages beside it for four seconds.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { ProviderGate } from '../../../lambdas/adapters/sync-gate.js';
import { encodeSyncMessage } from '../../../lambdas/core/sync/message.js';
import { SYNC_DEFAULT_LIMITS, SYNC_MAX_HOLD_MS } from '../../../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { createSyncWorkerHandler, SYNC_METRICS } from '../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../support/log.js';
import { MemorySyncLedger } from '../support/memory-ledger.js';
import { T0 } from '../suppression/support.js';

const record = (email: string, provider: SyncProviderName): SQSRecord =>
  ({
    messageId: `${provider}:${email}`,
    receiptHandle: `rh:${provider}:${email}`,
    body: encodeSyncMessage({ email, provider }),
    attributes: { ApproximateReceiveCount: '1' },
  }) as unknown as SQSRecord;

function worker(maxHoldMs: number | undefined) {
  let now = T0 + 1_000;
  let held = 0;
  const clock = {
    now: () => now,
    // The virtual clock moves as the gate holds a call.
    wait: async (ms: number) => {
      held += ms;
      now += ms;
    },
  };
  const gates = new Map(
    (['resend', 'sendgrid'] as const).map((p) => [
      p,
      new ProviderGate(p, SYNC_DEFAULT_LIMITS[p], { ...clock, maxHoldMs }),
    ]),
  );
  const ledger = new MemorySyncLedger(T0);
  const applied: Array<{ provider: SyncProviderName; email: string }> = [];
  const resent: Array<{ body: string; delaySeconds: number }> = [];
  const dead: string[] = [];
  const counters = new MemoryCounters();
  const handler = createSyncWorkerHandler({
    push: {
      ledger,
      providers: ['resend', 'sendgrid'],
      now: () => now,
      plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
      apply: (provider, operation) =>
        gates.get(provider as 'resend' | 'sendgrid')!.run(async () => {
          applied.push({ provider, email: operation.email });
          return { lists: ['global'] };
        }),
    },
    queue: {
      hide: async () => undefined,
      resend: async (body, delaySeconds) => void resent.push({ body, delaySeconds }),
      deadLetter: async (_body, reason) => void dead.push(reason.error),
    },
    retryHorizonMs: 1_000,
    log: recordingLog().log,
    counters,
    random: () => 0,
  });
  return { handler, ledger, applied, resent, dead, counters, held: () => held, now: () => now };
}

async function mixedBatch(maxHoldMs: number | undefined) {
  const w = worker(maxHoldMs);
  const records: SQSRecord[] = [];
  for (let i = 0; i < 5; i++) {
    for (const provider of ['resend', 'sendgrid'] as const) {
      const email = `${provider}${i}@example.com`;
      w.ledger.add(email, w.now());
      records.push(record(email, provider));
    }
  }
  const response = await w.handler({ Records: records });
  return { ...w, response };
}

describe('a slow provider does not hold the batch', () => {
  it('Resend at 1 call/s beside SendGrid: the batch is held at most SYNC_MAX_HOLD_MS, the rest of Resend waits its turn', async () => {
    const w = await mixedBatch(SYNC_MAX_HOLD_MS);
    expect(w.response.batchItemFailures).toEqual([]);
    // Every SendGrid message pushed in this batch, and the batch held no longer than the bound.
    expect(w.applied.filter((a) => a.provider === 'sendgrid')).toHaveLength(5);
    expect(w.held()).toBeLessThanOrEqual(SYNC_MAX_HOLD_MS);
    // Resend: as many as its rate allows within the bound, the others sent again, one interval apart.
    const interval = 1000 / SYNC_DEFAULT_LIMITS.resend.rate;
    const pushedNow = w.applied.filter((a) => a.provider === 'resend').length;
    expect(pushedNow).toBe(1 + Math.floor(SYNC_MAX_HOLD_MS / interval));
    expect(w.resent.map((r) => r.delaySeconds)).toEqual(
      // Told at the batch's start: the next free slots, 2 s, 3 s and 4 s ahead.
      Array.from({ length: 5 - pushedNow }, (_, i) => ((pushedNow + i) * interval) / 1000),
    );
    // Waiting, not failing: nothing dead-lettered, nothing counted as a retry, the horizon untouched.
    expect(w.dead).toEqual([]);
    expect([...w.counters.totals.keys()].filter((k) => k.startsWith(SYNC_METRICS.retried))).toEqual([]);
    expect(w.counters.totals.get(`${SYNC_METRICS.pushed}{provider=sendgrid}`)).toBe(5);
    for (const [email, view] of w.ledger.views)
      if (email.startsWith('resend')) expect(view.sync.resend?.retrying).toBeUndefined();
  });

  it('without the bound (the gate holding every call) the same batch is held four seconds', async () => {
    const w = await mixedBatch(undefined);
    expect(w.held()).toBe(4_000);
    expect(w.resent).toEqual([]);
  });
});
