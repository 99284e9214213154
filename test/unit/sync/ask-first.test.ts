/**
 * Ask before pushing again (core/sync/ask-first.ts, message.ts, sweep.ts, lease.ts, push.ts): a message
 * that may follow a push the provider applied and the worker never recorded carries `recheck`; with it,
 * each operation is preceded by a lookup, and a provider that already holds it is recorded, not pushed.
 * Without it, no lookup: the first push of a change is one provider call.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { applyEvent, DEFAULT_RATCHET_POLICY } from '../../../lambdas/core/suppression/index.js';
import { leased, leaseUntil, wasLeased } from '../../../lambdas/core/sync/lease.js';
import type { MarkerUpdate, SyncLedger, SyncView } from '../../../lambdas/core/sync/ledger.js';
import { encodeSyncMessage, parseSyncMessage } from '../../../lambdas/core/sync/message.js';
import { type PushDeps, pushChange } from '../../../lambdas/core/sync/push.js';
import type { SyncMap } from '../../../lambdas/core/sync/state.js';
import { sweepMessages } from '../../../lambdas/core/sync/sweep.js';
import {
  type SyncOperation,
  type SyncOutcome,
  SyncRateLimitedError,
  SyncTransientError,
} from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { createSyncWorkerHandler } from '../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../support/log.js';
import { EMAIL, ev, T0 } from '../suppression/support.js';

class Ledger implements SyncLedger {
  view: SyncView = {
    record: applyEvent(undefined, ev('complaint', T0), DEFAULT_RATCHET_POLICY).record,
    sync: {},
    change: 1,
    version: 1,
    due: 5,
  };
  async read(): Promise<SyncView> {
    return structuredClone(this.view);
  }
  async commit(_email: string, version: number, sync: SyncMap, marker: MarkerUpdate): Promise<boolean> {
    if (version !== this.view.version) return false;
    const due = marker === 'keep' ? this.view.due : marker === 'clear' ? undefined : marker.due;
    this.view = { ...this.view, sync: structuredClone(sync), version: version + 1, due };
    return true;
  }
}

function world(held: (op: SyncOperation) => Promise<SyncOutcome | undefined>) {
  const ledger = new Ledger();
  const calls: string[] = [];
  const deps: PushDeps = {
    ledger,
    providers: ['ses'],
    now: () => T0 + 100,
    plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
    apply: async () => {
      calls.push('apply');
      return { lists: ['account'], providerReason: 'COMPLAINT' };
    },
    held: async (_p, op) => {
      calls.push('held');
      return held(op);
    },
  };
  return { ledger, calls, deps };
}

describe('the sync message', () => {
  it('carries recheck only when set, and a message written before the field existed parses as a first message', () => {
    expect(encodeSyncMessage({ email: 'a@x.com', provider: 'ses' })).toBe('{"email":"a@x.com","provider":"ses"}');
    const again = encodeSyncMessage({ email: 'a@x.com', provider: 'ses', recheck: true });
    expect(parseSyncMessage(again)).toEqual({ email: 'a@x.com', provider: 'ses', recheck: true });
    expect(parseSyncMessage('{"email":"a@x.com","provider":"ses"}')).toEqual({ email: 'a@x.com', provider: 'ses' });
    expect(parseSyncMessage('{"email":"a@x.com","provider":"ses","recheck":false}')).toEqual({
      email: 'a@x.com',
      provider: 'ses',
    });
  });
});

describe('the sweep marks what it sends again', () => {
  it('a lease ends half a millisecond past a whole one; a marker set by a change or the backfill does not', () => {
    expect(wasLeased(leaseUntil(1_000, 10, 1))).toBe(true);
    expect(wasLeased(leased(1_234.5))).toBe(true);
    expect(leased(1_234.5)).toBe(1_234.5);
    expect(wasLeased(1_764_625_060_000)).toBe(false);
  });

  it('recheck for an item whose marker is a lease, or for every item of the start sweep; never for a first send', () => {
    const item = (due: number) => ({ email: 'a@x.com', change: 1, sync: {}, due });
    expect(sweepMessages([item(60_000)], ['ses', 'resend'])).toEqual([
      { email: 'a@x.com', provider: 'ses' },
      { email: 'a@x.com', provider: 'resend' },
    ]);
    expect(sweepMessages([item(leased(60_000))], ['ses'])).toEqual([
      { email: 'a@x.com', provider: 'ses', recheck: true },
    ]);
    expect(sweepMessages([item(60_000)], ['ses'], true)).toEqual([
      { email: 'a@x.com', provider: 'ses', recheck: true },
    ]);
  });
});

describe('pushChange with recheck', () => {
  it('the provider already holds it: recorded as if pushed, nothing pushed, the marker cleared', async () => {
    const w = world(async () => ({ lists: ['account'], providerReason: 'COMPLAINT' }));
    const result = await pushChange(w.deps, { email: EMAIL, provider: 'ses', recheck: true });
    expect(w.calls).toEqual(['held']);
    expect(result.pushed).toEqual([]);
    expect(result.found).toEqual([{ op: 'suppress', email: EMAIL, reason: 'complaint' }]);
    expect(w.ledger.view.sync.ses).toMatchObject({ reason: 'complaint', lists: ['account'], change: 1 });
    expect(w.ledger.view.due).toBeUndefined();
  });

  it('the provider does not hold it: asked, then pushed once', async () => {
    const w = world(async () => undefined);
    const result = await pushChange(w.deps, { email: EMAIL, provider: 'ses', recheck: true });
    expect(w.calls).toEqual(['held', 'apply']);
    expect(result.pushed).toHaveLength(1);
    expect(w.ledger.view.sync.ses).toMatchObject({ reason: 'complaint', change: 1 });
  });

  it('a first message asks nothing: one provider call', async () => {
    const w = world(async () => ({ lists: ['account'] }));
    await pushChange(w.deps, { email: EMAIL, provider: 'ses' });
    expect(w.calls).toEqual(['apply']);
  });

  it('a provider that cannot be asked is pushed again (its operations are idempotent)', async () => {
    const w = world(async () => undefined);
    delete w.deps.held;
    await pushChange(w.deps, { email: EMAIL, provider: 'ses', recheck: true });
    expect(w.calls).toEqual(['apply']);
  });

  it('a lookup that fails fails the push the same way, and pushes nothing', async () => {
    for (const error of [new SyncRateLimitedError('ses', T0 + 5_000), new SyncTransientError('ses', 'HTTP 503')]) {
      const w = world(async () => {
        throw error;
      });
      await expect(pushChange(w.deps, { email: EMAIL, provider: 'ses', recheck: true })).rejects.toBe(error);
      expect(w.calls).toEqual(['held']);
      expect(w.ledger.view.due).toBe(5);
    }
  });
});

describe('a lookup that fails, in the worker', () => {
  it('a 429 on the lookup waits (sent again for the named time, still asking), a 5xx retries: neither dead-letters nor pushes', async () => {
    for (const [error, seconds] of [
      [new SyncRateLimitedError('ses', T0 + 100 + 7_000), 7],
      [new SyncTransientError('ses', 'HTTP 503'), undefined],
    ] as const) {
      const w = world(async () => {
        throw error;
      });
      const hidden: number[] = [];
      const resent: Array<{ body: string; seconds: number }> = [];
      const dead: string[] = [];
      const handler = createSyncWorkerHandler({
        push: w.deps,
        queue: {
          hide: async (_receipt, s) => void hidden.push(s),
          resend: async (body, seconds) => void resent.push({ body, seconds }),
          deadLetter: async (body) => void dead.push(body),
        },
        retryHorizonMs: 3_600_000,
        log: recordingLog().log,
        counters: new MemoryCounters(),
        random: () => 0,
      });
      const body = encodeSyncMessage({ email: EMAIL, provider: 'ses', recheck: true });
      const response = await handler({
        Records: [
          {
            messageId: 'm1',
            receiptHandle: 'rh',
            body,
            attributes: { ApproximateReceiveCount: '1' },
          } as unknown as SQSRecord,
        ],
      });
      expect(dead).toEqual([]);
      expect(w.calls).toEqual(['held']);
      if (seconds !== undefined) {
        // A wait: sent again fresh for the named time, still asking (the question is still open).
        expect(response.batchItemFailures).toEqual([]);
        expect(resent).toEqual([{ body, seconds }]);
        expect(hidden).toEqual([]);
      } else {
        // A counted failure: hidden for its backoff, and back as a redelivery, which asks again.
        expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
        expect(hidden).toHaveLength(1);
        expect(resent).toEqual([]);
      }
    }
  });
});
