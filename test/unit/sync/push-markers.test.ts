/**
 * recordRetry and recordDeferral (core/sync/push.ts) called directly against a ledger that counts its
 * reads and commits, so the marker each one writes (or leaves alone), the `sync` state it writes and the
 * number of writes are asserted exactly: the lease moved only forward past a retry, the horizon's start
 * kept on the record, the deferral's live-marker rule and the no-op that writes nothing.
 * deferral.test.ts drives the same rules through the worker handler.
 */
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../../lambdas/core/errors.js';
import { leased } from '../../../lambdas/core/sync/lease.js';
import { DEAD_DUE_MS, type SyncView } from '../../../lambdas/core/sync/ledger.js';
import { type PushDeps, pushChange, recordDeferral, recordRetry } from '../../../lambdas/core/sync/push.js';
import type { SyncProviderName } from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { EMAIL, T0 } from '../suppression/support.js';
import { CountingLedger, complained, withGroup } from './support/counting-ledger.js';

const NOW = T0 + 100_000;
const HORIZON_MS = 3_600_000;

function ledger(over: Partial<SyncView> = {}): CountingLedger {
  return new CountingLedger({ record: complained(), sync: {}, change: 1, version: 1, due: 5, ...over });
}

const message = { email: EMAIL, provider: 'sendgrid' } as const;

describe('recordRetry: the horizon’s start and the lease past the next attempt', () => {
  const deps = (l: CountingLedger) => ({ ledger: l, now: () => NOW });
  const LEASE = leased(NOW + 10_000);
  const retry = (l: CountingLedger, attemptAt = NOW - 10) =>
    recordRetry(deps(l), message, attemptAt, { horizonMs: HORIZON_MS, leaseUntil: LEASE });

  it('a first failure with no provider state yet: an empty state carrying `retrying`, the marker moved to the lease', async () => {
    const l = ledger();
    expect(await retry(l)).toBe('retry');
    expect(l.commits).toStrictEqual([
      {
        version: 1,
        sync: { sendgrid: { at: NOW, lists: [], retrying: { change: 1, since: NOW - 10 } } },
        marker: { due: LEASE },
      },
    ]);
  });

  it('a first failure with the marker absent, at the lease or past it: `retrying` written, the marker kept', async () => {
    const state = { at: T0, reason: 'complaint' as const, lists: ['global'], change: 0 };
    for (const due of [undefined, LEASE, LEASE + 1_000]) {
      const l = ledger({ due, sync: { sendgrid: state } });
      expect(await retry(l)).toBe('retry');
      expect(l.commits).toStrictEqual([
        { version: 1, sync: { sendgrid: { ...state, retrying: { change: 1, since: NOW - 10 } } }, marker: 'keep' },
      ]);
      expect(l.view.due).toBe(due);
    }
  });

  it('a change already retrying, its lease already long enough: nothing written', async () => {
    for (const due of [undefined, LEASE, LEASE + 1_000]) {
      const l = ledger({
        due,
        sync: { sendgrid: { at: T0, lists: [], retrying: { change: 1, since: NOW - 60_000 } } },
      });
      expect(await retry(l)).toBe('retry');
      expect([l.reads, l.commits.length]).toStrictEqual([1, 0]);
    }
  });

  it('a change already retrying with the marker before the lease: only the marker moves, the horizon’s start kept', async () => {
    const sync = { sendgrid: { at: T0, lists: [], retrying: { change: 1, since: NOW - 60_000 } } };
    const l = ledger({ due: 5, sync });
    expect(await retry(l)).toBe('retry');
    expect(l.commits).toStrictEqual([{ version: 1, sync, marker: { due: LEASE } }]);
  });

  it('the record gone: retried, nothing written', async () => {
    const l = ledger();
    l.forgetAfter = 0;
    expect(await retry(l)).toBe('retry');
    expect([l.reads, l.commits.length]).toStrictEqual([1, 0]);
  });

  it('a write that keeps losing: ten rounds, then a TransientError', async () => {
    const l = ledger();
    l.conflict = true;
    const error = await retry(l).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toBe('sync write kept conflicting while recording a retry');
    expect([l.reads, l.commits.length]).toStrictEqual([10, 10]);
  });
});

describe('recordDeferral: the marker a change waits on in the outbox', () => {
  const DUE_AT = NOW + 3_600_000;
  const defer = (l: CountingLedger, providers: SyncProviderName[] = ['sendgrid']) =>
    recordDeferral({ ledger: l, providers }, message, { waitMs: DUE_AT - NOW, dueAt: DUE_AT });

  it('the record gone: done, nothing written', async () => {
    const l = ledger();
    l.forgetAfter = 0;
    expect(await defer(l)).toBe(true);
    expect([l.reads, l.commits.length]).toStrictEqual([1, 0]);
  });

  it('a write that keeps losing: ten rounds, then false (the message goes round the queue instead)', async () => {
    const l = ledger();
    l.conflict = true;
    expect(await defer(l)).toBe(false);
    expect([l.reads, l.commits.length]).toStrictEqual([10, 10]);
  });

  it('the marker already at that time, nothing to credit: done, nothing written', async () => {
    const l = ledger({ due: DUE_AT });
    expect(await defer(l)).toBe(true);
    expect(l.commits).toStrictEqual([]);
  });

  it('a dead letter for the current change is dropped even when the marker is already at that time; one for an older change is kept', async () => {
    const failed = { at: T0, lists: [], failed: { at: T0, change: 1, error: 'SyncTransientError: 503' } };
    const l = ledger({ due: DUE_AT, sync: { sendgrid: failed } });
    expect(await defer(l)).toBe(true);
    expect(l.commits).toStrictEqual([
      { version: 1, sync: { sendgrid: { at: T0, lists: [] } }, marker: { due: DUE_AT } },
    ]);

    const older = ledger({ due: DUE_AT, change: 2, sync: { sendgrid: failed } });
    expect(await defer(older)).toBe(true);
    expect(older.commits).toStrictEqual([]);
  });

  it('this provider caught up (another worker pushed it) while another lags on a live marker: the marker is set, done', async () => {
    const sync = { sendgrid: { at: T0, lists: [], change: 1 } };
    const l = ledger({ due: 5, sync });
    expect(await defer(l, ['sendgrid', 'ses'])).toBe(true);
    expect(l.commits).toStrictEqual([{ version: 1, sync, marker: { due: DUE_AT } }]);
  });

  it('no live marker (absent, or parked) while this provider and another lag: set to that time, whole', async () => {
    for (const due of [undefined, DEAD_DUE_MS]) {
      const l = ledger({ due });
      expect(await defer(l, ['sendgrid', 'ses'])).toBe(true);
      expect(l.commits).toStrictEqual([{ version: 1, sync: {}, marker: { due: DUE_AT } }]);
    }
  });
});

describe('pushChange: a later round’s answers', () => {
  it('are written even when another worker already stored the same state: `at` is when this call recorded them', async () => {
    const l = ledger({ due: undefined });
    const caughtUp = {
      at: T0,
      reason: 'complaint' as const,
      lists: ['global'],
      scopes: { 'sendgrid:group:7': ['group:7'] },
      change: 2,
    };
    // While the suppression was pushed, a group unsubscribe landed and another worker pushed both.
    l.onCommit = () => {
      l.view = { record: withGroup(), change: 2, version: 2, sync: { sendgrid: caughtUp } };
    };
    const d: PushDeps = {
      ledger: l,
      providers: ['sendgrid'],
      now: () => NOW,
      plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: (s) => s.startsWith('sendgrid:group:') }),
      apply: async (_p, op) => ({ lists: op.op === 'suppress' ? ['global'] : ['group:7'] }),
    };
    const result = await pushChange(d, message);
    expect(result.pushed.map((o) => o.op)).toStrictEqual(['suppress', 'suppressScope']);
    expect(l.commits.map((c) => [c.version, c.marker])).toStrictEqual([
      [1, 'clear'],
      [2, 'clear'],
    ]);
    expect(l.view.sync).toStrictEqual({ sendgrid: { ...caughtUp, at: NOW } });
  });
});
