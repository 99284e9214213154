/**
 * The batcher (lambdas/adapters/sync-batcher.ts) in front of a real gate: pushes to one list that wait
 * for the gate share one request, up to the target's cap; anything else goes alone; a batch's answer
 * and its fate are split back per push.
 */
import { describe, expect, it } from 'vitest';
import { ProviderBatcher } from '../../../lambdas/adapters/sync-batcher.js';
import { ProviderGate } from '../../../lambdas/adapters/sync-gate.js';
import type { CallTicket } from '../../../lambdas/core/sync/ask-first.js';
import {
  type SyncOperation,
  type SyncOutcome,
  SyncProviderBusyError,
  SyncRateLimitedError,
  SyncRefusedError,
  type SyncTarget,
  SyncTransientError,
} from '../../../lambdas/core/sync/target.js';

const suppress = (n: number | string): SyncOperation => ({
  op: 'suppress',
  email: `a${n}@example.com`,
  reason: 'hard_bounce',
});
const scope = (n: number, group: string): SyncOperation => ({
  op: 'suppressScope',
  email: `a${n}@example.com`,
  scope: `sendgrid:group:${group}`,
});

/** A provider that takes lists: records every request; `refuse` names addresses it will not take. */
function listTarget(
  options: { maxBatch?: number; batching?: boolean; refuse?: Set<string>; wholeRefusal?: boolean } = {},
) {
  const requests: Array<{ kind: 'apply' | 'applyMany'; emails: string[] }> = [];
  let answer: ((operations: readonly SyncOperation[]) => Promise<unknown>) | undefined;
  const outcome = (operation: SyncOperation): SyncOutcome => ({ lists: [`list:${operation.email}`] });
  const target: SyncTarget & { requests: typeof requests; answerWith(fn: typeof answer): void } = {
    provider: 'sendgrid',
    requests,
    answerWith: (fn) => {
      answer = fn;
    },
    handlesScope: () => true,
    list: async () => undefined,
    async apply(operation) {
      requests.push({ kind: 'apply', emails: [operation.email] });
      if (answer) await answer([operation]);
      if (options.refuse?.has(operation.email)) throw new SyncRefusedError('sendgrid', 400, 'email address is invalid');
      return outcome(operation);
    },
    ...(options.batching === false
      ? {}
      : {
          maxBatch: options.maxBatch ?? 10,
          batchKey: (operation: SyncOperation) =>
            operation.op === 'suppress' ? 'global' : operation.op === 'suppressScope' ? operation.scope : undefined,
          async applyMany(operations: readonly SyncOperation[]) {
            requests.push({ kind: 'applyMany', emails: operations.map((o) => o.email) });
            if (answer) {
              const replaced = await answer(operations);
              if (replaced) return replaced as Array<SyncOutcome | SyncRefusedError>;
            }
            if (options.wholeRefusal && operations.some((o) => options.refuse?.has(o.email)))
              throw new SyncRefusedError('sendgrid', 400, 'email address is invalid');
            return operations.map((o) =>
              options.refuse?.has(o.email) ? new SyncRefusedError('sendgrid', 422, 'refused') : outcome(o),
            );
          },
        }),
  };
  return target;
}

/** A real gate on a virtual clock: holds pass at once, the clock moves by the hold. */
function gateFor(limits = { concurrency: 1, rate: 1000 }, options: { maxHoldMs?: number } = {}) {
  const clock = { now: 1_000_000 };
  const gate = new ProviderGate('sendgrid', limits, {
    now: () => clock.now,
    wait: async (ms) => {
      clock.now += ms;
    },
    ...options,
  });
  return { gate, clock };
}

const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);

describe('pushes that wait for the gate share one request', () => {
  it('pushes that arrive together go in one applyMany, each answered with its own outcome', async () => {
    const target = listTarget();
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.apply(suppress(n))));
    expect(target.requests).toEqual([{ kind: 'applyMany', emails: [1, 2, 3, 4, 5].map((n) => `a${n}@example.com`) }]);
    expect(outcomes.map((o) => o.lists[0])).toEqual([1, 2, 3, 4, 5].map((n) => `list:a${n}@example.com`));
  });

  it('pushes of one tick meet however many awaits each took to get there (one SQS batch, one record read)', async () => {
    const target = listTarget();
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const hops = async (n: number) => {
      for (let i = 0; i < n * 10; i++) await null;
    };
    await Promise.all([0, 1, 2, 3, 4].map(async (n) => hops(n).then(() => batcher.apply(suppress(n)))));
    expect(target.requests.map((r) => r.emails.length)).toEqual([5]);
  });

  it('never more than the cap in one request; the rest open the next', async () => {
    const target = listTarget({ maxBatch: 4 });
    const batcher = new ProviderBatcher(target, gateFor().gate);
    await Promise.all(Array.from({ length: 10 }, (_, n) => batcher.apply(suppress(n))));
    expect(target.requests.map((r) => r.emails.length)).toEqual([4, 4, 2]);
    expect(new Set(target.requests.flatMap((r) => r.emails)).size).toBe(10);
  });

  it('only operations with the same key share: other groups, and removals, go apart', async () => {
    const target = listTarget();
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const removal: SyncOperation = { op: 'unsuppress', email: 'a9@example.com', lists: ['global_unsubscribes'] };
    await Promise.all([
      batcher.apply(scope(1, '7')),
      batcher.apply(scope(2, '8')),
      batcher.apply(scope(3, '7')),
      batcher.apply(suppress(4)),
      batcher.apply(removal),
      batcher.apply(suppress(5)),
    ]);
    const sets = target.requests.map((r) => `${r.kind}:${r.emails.join(',')}`).sort();
    expect(sets).toEqual(
      [
        'applyMany:a1@example.com,a3@example.com',
        'apply:a2@example.com',
        'applyMany:a4@example.com,a5@example.com',
        'apply:a9@example.com',
      ].sort(),
    );
  });

  it('a push that finds no call waiting goes alone, at once: batches form only when calls wait', async () => {
    const target = listTarget();
    const batcher = new ProviderBatcher(target, gateFor().gate);
    for (const n of [1, 2, 3]) await batcher.apply(suppress(n));
    expect(target.requests).toEqual([1, 2, 3].map((n) => ({ kind: 'apply', emails: [`a${n}@example.com`] })));
  });

  it('a call in flight holds the next: everything that queues behind it rides in one request', async () => {
    const target = listTarget();
    let release!: () => void;
    const first = new Promise<void>((r) => {
      release = r;
    });
    target.answerWith(async (ops) => {
      if (ops.length === 1 && ops[0]!.email === 'a0@example.com') await first;
      return undefined;
    });
    const batcher = new ProviderBatcher(target, gateFor({ concurrency: 1, rate: 1000 }).gate);
    const head = batcher.apply(suppress(0));
    await new Promise((r) => setTimeout(r, 5));
    const behind = Array.from({ length: 6 }, (_, n) => batcher.apply(suppress(n + 1)));
    await new Promise((r) => setTimeout(r, 5));
    release();
    await Promise.all([head, ...behind]);
    expect(target.requests.map((r) => r.emails.length)).toEqual([1, 6]);
  });

  it('a target without applyMany batches nothing', async () => {
    const target = listTarget({ batching: false });
    const batcher = new ProviderBatcher(target, gateFor().gate);
    await Promise.all([1, 2, 3].map((n) => batcher.apply(suppress(n))));
    expect(target.requests.map((r) => r.kind)).toEqual(['apply', 'apply', 'apply']);
  });

  it("the next call of a message under way keeps its own slot and rides in nobody's batch", async () => {
    const target = listTarget();
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const ticket: CallTicket = { started: true };
    await Promise.all([batcher.apply(suppress(1)), batcher.apply(suppress(2), ticket), batcher.apply(suppress(3))]);
    expect(target.requests.map((r) => r.emails.join(','))).toEqual(['a1@example.com,a3@example.com', 'a2@example.com']);
  });

  it("every rider's ticket is marked started when the request runs", async () => {
    const target = listTarget();
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const tickets: CallTicket[] = [{}, {}, {}];
    await Promise.all(tickets.map((t, n) => batcher.apply(suppress(n), t)));
    expect(tickets.map((t) => t.started)).toEqual([true, true, true]);
  });
});

describe("a batch's answer and fate are split back per push", () => {
  it('an entry the provider refused alone fails alone', async () => {
    const target = listTarget({ refuse: new Set(['a2@example.com']) });
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const results = await settle([1, 2, 3].map((n) => batcher.apply(suppress(n))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(SyncRefusedError);
    expect(target.requests).toHaveLength(1);
  });

  it('a refusal of the whole request is retried one push at a time: only the bad address fails', async () => {
    const target = listTarget({ refuse: new Set(['a2@example.com']), wholeRefusal: true });
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const results = await settle([1, 2, 3].map((n) => batcher.apply(suppress(n))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(target.requests.map((r) => r.kind)).toEqual(['applyMany', 'apply', 'apply', 'apply']);
  });

  it('a 429 on the request reaches every rider, and pauses the gate', async () => {
    const target = listTarget();
    const { gate, clock } = gateFor();
    target.answerWith(async () => {
      throw new SyncRateLimitedError('sendgrid', clock.now + 30_000);
    });
    const batcher = new ProviderBatcher(target, gate);
    const results = await settle([1, 2, 3].map((n) => batcher.apply(suppress(n))));
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SyncRateLimitedError);
    expect(gate.pausedUntil).toBe(clock.now + 30_000);
    // Paused: the next batch is refused before any request.
    target.answerWith(undefined);
    const again = await settle([4, 5].map((n) => batcher.apply(suppress(n))));
    for (const r of again) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SyncRateLimitedError);
    expect(target.requests).toHaveLength(1);
  });

  it('a 5xx on the request fails every rider as a transient failure (each counts its own retry)', async () => {
    const target = listTarget();
    target.answerWith(async () => {
      throw new SyncTransientError('sendgrid', 'sendgrid answered 503');
    });
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const results = await settle([1, 2].map((n) => batcher.apply(suppress(n))));
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SyncTransientError);
  });

  it('a batch handed back by the gate hands back every rider with the same turn', async () => {
    const target = listTarget();
    // One call a second, no hold: the first call takes the slot, the next batch is handed back.
    const { gate } = gateFor({ concurrency: 1, rate: 1 }, { maxHoldMs: 0 });
    const batcher = new ProviderBatcher(target, gate);
    await batcher.apply(suppress(0));
    const results = await settle([1, 2, 3].map((n) => batcher.apply(suppress(n))));
    const turns = results.map((r) => {
      const error = (r as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(SyncProviderBusyError);
      return (error as SyncProviderBusyError).retryAtMs;
    });
    expect(new Set(turns).size).toBe(1);
    expect(target.requests).toHaveLength(1);
  });

  it('an answer with the wrong number of entries fails every rider, never resolves one with another’s outcome', async () => {
    const target = listTarget();
    target.answerWith(async (ops) => (ops.length > 1 ? [{ lists: ['x'] }] : undefined));
    const batcher = new ProviderBatcher(target, gateFor().gate);
    const results = await settle([1, 2].map((n) => batcher.apply(suppress(n))));
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SyncTransientError);
  });
});
