/**
 * pushChange, markDead and recordWait against a ledger that counts its reads and commits and can be
 * made to lose every write or forget the record, so the retry bounds, the marker rule and what a
 * failure leaves behind are asserted exactly (push.test.ts stages the races on the happy path).
 */
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../../lambdas/core/errors.js';
import { emptyRecord, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { DEAD_DUE_MS, type SyncView } from '../../../lambdas/core/sync/ledger.js';
import { markDead, type PushDeps, pushChange, recordWait } from '../../../lambdas/core/sync/push.js';
import { type SyncOperation, SyncTransientError } from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { EMAIL, T0 } from '../suppression/support.js';
import { CountingLedger, complained, withGroup } from './support/counting-ledger.js';

const NOW = T0 + 100;

function ledger(record: SuppressionRecord, over: Partial<SyncView> = {}): CountingLedger {
  return new CountingLedger({ record, sync: {}, change: 1, version: 1, due: 5, ...over });
}

function deps(l: CountingLedger, over: Partial<PushDeps> = {}): PushDeps & { calls: SyncOperation[] } {
  const calls: SyncOperation[] = [];
  return {
    ledger: l,
    providers: ['sendgrid'],
    now: () => NOW,
    plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: (s) => s.startsWith('sendgrid:group:') }),
    apply: async (_p, op) => {
      calls.push(op);
      return { lists: op.op === 'suppress' ? ['global'] : op.op === 'suppressScope' ? ['group:7'] : [] };
    },
    calls,
    ...over,
  };
}

const message = { email: EMAIL, provider: 'sendgrid' } as const;

describe('pushChange: nothing to do', () => {
  it('a provider that is not configured: skipped without reading', async () => {
    const l = ledger(complained());
    const d = deps(l, { providers: ['ses'] });
    expect(await pushChange(d, message)).toStrictEqual({ pushed: [], skipped: true });
    expect([l.reads, l.commits.length, d.calls.length]).toStrictEqual([0, 0, 0]);
  });

  it('no record: skipped, nothing applied or written', async () => {
    const l = ledger(complained());
    l.forgetAfter = 0;
    const d = deps(l);
    expect(await pushChange(d, message)).toStrictEqual({ pushed: [], skipped: true });
    expect([l.reads, l.commits.length, d.calls.length]).toStrictEqual([1, 0, 0]);
  });

  it('an active record never pushed: the provider is recorded caught up with an empty state, the marker cleared', async () => {
    const l = ledger(emptyRecord(EMAIL));
    expect(await pushChange(deps(l), message)).toStrictEqual({ pushed: [] });
    expect(l.view.sync).toStrictEqual({ sendgrid: { at: NOW, lists: [], change: 1 } });
    expect(l.commits.map((c) => c.marker)).toStrictEqual(['clear']);
    expect(l.view.due).toBeUndefined();
  });
});

describe('pushChange: retries and failures', () => {
  it('a write that keeps losing the race: ten rounds, then a TransientError the queue retries', async () => {
    const l = ledger(emptyRecord(EMAIL));
    l.conflict = true;
    const error = await pushChange(deps(l), message).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toBe('sync write kept conflicting; the message will be retried');
    expect([l.reads, l.commits.length]).toStrictEqual([10, 10]);
  });

  it('the first call failing leaves the ledger untouched', async () => {
    const l = ledger(complained());
    const d = deps(l, {
      apply: async () => {
        throw new SyncTransientError('sendgrid', '503');
      },
    });
    await expect(pushChange(d, message)).rejects.toThrow('503');
    expect([l.reads, l.commits.length]).toStrictEqual([1, 0]);
  });

  function failSecond(l: CountingLedger) {
    let n = 0;
    const d = deps(l);
    const apply = d.apply;
    d.apply = async (p, op) => {
      if (++n === 2) throw new SyncTransientError('sendgrid', '503 second');
      return apply(p, op);
    };
    return d;
  }

  it('a failure part-way saves what was answered, without claiming the change (none was stored)', async () => {
    const l = ledger(withGroup());
    await expect(pushChange(failSecond(l), message)).rejects.toThrow('503 second');
    expect(l.view.sync).toStrictEqual({ sendgrid: { at: NOW, reason: 'complaint', lists: ['global'] } });
    expect(l.commits.map((c) => c.marker)).toStrictEqual(['keep']);
    expect(l.view.due).toBe(5);
  });

  it('a failure part-way keeps the change the provider had caught up with before', async () => {
    const l = ledger(withGroup(), { change: 2, sync: { sendgrid: { at: T0, lists: [], change: 1 } } });
    await expect(pushChange(failSecond(l), message)).rejects.toThrow('503 second');
    expect(l.view.sync).toStrictEqual({ sendgrid: { at: NOW, reason: 'complaint', lists: ['global'], change: 1 } });
  });

  it('saving the progress is tried three times, then the original error is what the caller sees', async () => {
    const l = ledger(withGroup());
    l.conflict = true;
    await expect(pushChange(failSecond(l), message)).rejects.toThrow('503 second');
    expect([l.reads, l.commits.length]).toStrictEqual([4, 3]);
  });

  it('the record gone while saving: nothing is written', async () => {
    const l = ledger(withGroup());
    l.forgetAfter = 1;
    await expect(pushChange(failSecond(l), message)).rejects.toThrow('503 second');
    expect([l.reads, l.commits.length]).toStrictEqual([2, 0]);
  });
});

describe('pushChange: the marker when nothing is left to push', () => {
  const caughtUp = {
    at: T0,
    reason: 'complaint' as const,
    lists: ['global'],
    scopes: { 'sendgrid:group:7': ['group:7'] },
    change: 1,
  };

  it('caught up, marker already clear: no write at all', async () => {
    const l = ledger(withGroup(), { sync: { sendgrid: caughtUp }, due: undefined });
    expect(await pushChange(deps(l), message)).toStrictEqual({ pushed: [] });
    expect(l.commits).toStrictEqual([]);
  });

  it('caught up but the marker is still set (the provider list changed): the commit clears it', async () => {
    const l = ledger(withGroup(), { sync: { sendgrid: caughtUp }, due: 5 });
    await pushChange(deps(l), message);
    expect(l.commits.map((c) => c.marker)).toStrictEqual(['clear']);
    expect(l.view.due).toBeUndefined();
  });

  it('caught up while another provider lags: the marker stays, nothing is written', async () => {
    const l = ledger(withGroup(), { sync: { sendgrid: caughtUp }, due: 5 });
    await pushChange(deps(l, { providers: ['sendgrid', 'ses'] }), message);
    expect(l.commits).toStrictEqual([]);
  });

  it('a refused removal parks the marker (written once), and a parked marker is left alone', async () => {
    const refused = { ...caughtUp, refused: [{ list: 'spam', why: 'kept' }] };
    const l = ledger(withGroup(), { sync: { sendgrid: refused }, due: 5 });
    await pushChange(deps(l), message);
    expect(l.commits.map((c) => c.marker)).toStrictEqual([{ due: DEAD_DUE_MS }]);
    await pushChange(deps(l), message);
    expect(l.commits).toHaveLength(1);
  });

  it('a change that had been dead-lettered, pushed again: the failure is cleared with the marker', async () => {
    const dead = { ...caughtUp, change: 0, failed: { at: T0, change: 1, error: 'x' } };
    const l = ledger(withGroup(), { sync: { sendgrid: dead }, due: DEAD_DUE_MS });
    expect(await pushChange(deps(l), message)).toStrictEqual({ pushed: [] });
    expect(l.view.sync).toStrictEqual({ sendgrid: { ...caughtUp, at: T0, change: 1 } });
    expect(l.view.due).toBeUndefined();
    // The same state with the failure still on it and the same change: the failure alone is cleared.
    const still = ledger(withGroup(), {
      sync: { sendgrid: { ...caughtUp, failed: { at: T0, change: 1, error: 'x' } } },
      due: DEAD_DUE_MS,
    });
    await pushChange(deps(still), message);
    expect(still.view.sync).toStrictEqual({ sendgrid: caughtUp });
  });

  it('another worker stored the same answer meanwhile (map keys in another order): not written twice', async () => {
    const l = ledger(withGroup(), { due: undefined });
    l.onCommit = () => {
      // DynamoDB does not keep a map's key order: the same state, read back reordered.
      l.view = {
        ...l.view,
        version: l.view.version + 1,
        sync: {
          sendgrid: {
            change: 1,
            scopes: { 'sendgrid:group:7': ['group:7'] },
            lists: ['global'],
            reason: 'complaint',
            at: T0,
          },
        },
      };
    };
    const result = await pushChange(deps(l), message);
    expect(result.pushed.map((o) => o.op)).toStrictEqual(['suppress', 'suppressScope']);
    expect([l.reads, l.commits.length]).toStrictEqual([2, 1]);
  });
});

describe('markDead', () => {
  it('never pushed: an empty state carrying the failure, the error cut to 200 characters', async () => {
    const l = ledger(complained());
    await markDead(deps(l), message, `E${'x'.repeat(300)}`);
    expect(l.view.sync).toStrictEqual({
      sendgrid: { at: NOW, lists: [], failed: { at: NOW, change: 1, error: `E${'x'.repeat(199)}` } },
    });
  });

  it('no record: nothing written', async () => {
    const l = ledger(complained());
    l.forgetAfter = 0;
    await markDead(deps(l), message, 'e');
    expect([l.reads, l.commits.length]).toStrictEqual([1, 0]);
  });

  it('a write that keeps losing: ten rounds, then a TransientError', async () => {
    const l = ledger(complained());
    l.conflict = true;
    const error = await markDead(deps(l), message, 'e').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toBe('sync write kept conflicting while recording a dead letter');
    expect([l.reads, l.commits.length]).toStrictEqual([10, 10]);
  });
});

describe('recordWait', () => {
  const wait = (waitMs: number, leaseUntil: number) => ({ waitMs, leaseUntil });

  it('moves a marker due before the next attempt to it, keeping the sync map', async () => {
    const sync = { sendgrid: { at: T0, lists: ['global'] } };
    const l = ledger(complained(), { due: 5, sync });
    await recordWait(deps(l), message, wait(1_000, 6));
    expect(l.commits).toStrictEqual([{ version: 1, sync, marker: { due: 6 } }]);
  });

  it('leaves alone a marker already at or past it, an absent marker, and a missing record', async () => {
    for (const due of [6, 7, undefined]) {
      const l = ledger(complained(), { due });
      await recordWait(deps(l), message, wait(1_000, 6));
      expect(l.commits).toStrictEqual([]);
    }
    const gone = ledger(complained());
    gone.forgetAfter = 0;
    await recordWait(deps(gone), message, wait(1_000, 6));
    expect(gone.commits).toStrictEqual([]);
  });

  it('moves a retrying change’s horizon start forward by the wait, even with the lease already long enough', async () => {
    const sync = { sendgrid: { at: T0, lists: [], retrying: { change: 1, since: T0 } } };
    const l = ledger(complained(), { due: 9, sync });
    await recordWait(deps(l), message, wait(60_000, 6));
    expect(l.commits).toStrictEqual([
      {
        version: 1,
        sync: { sendgrid: { at: T0, lists: [], retrying: { change: 1, since: T0 + 60_000 } } },
        marker: 'keep',
      },
    ]);
  });

  it('credits only the change being retried, at this provider', async () => {
    // Retrying an older change (the record moved on), and another provider's retry: neither is this wait's.
    const sync = {
      sendgrid: { at: T0, lists: [], retrying: { change: 1, since: T0 } },
      ses: { at: T0, lists: [], retrying: { change: 2, since: T0 } },
    };
    const l = ledger(complained(), { due: 5, sync, change: 2 });
    await recordWait(deps(l), message, wait(60_000, 6));
    expect(l.commits).toStrictEqual([{ version: 1, sync, marker: { due: 6 } }]);
  });

  it('a lost write is read again and the credit applied once; a write that keeps losing gives up quietly', async () => {
    const sync = { sendgrid: { at: T0, lists: [], retrying: { change: 1, since: T0 } } };
    const l = ledger(complained(), { due: 9, sync });
    l.onCommit = () => {
      l.view = { ...l.view, version: 2 };
    };
    await recordWait(deps(l), message, wait(60_000, 6));
    expect(l.commits.map((c) => c.version)).toStrictEqual([1, 2]);
    expect(l.view.sync.sendgrid?.retrying?.since).toBe(T0 + 60_000);

    const losing = ledger(complained(), { due: 9, sync });
    losing.conflict = true;
    await expect(recordWait(deps(losing), message, wait(60_000, 6))).resolves.toBeUndefined();
    expect(losing.commits).toHaveLength(10);
  });
});
