/**
 * pushChange against an in-memory ledger with the adapter's semantics (version guard, marker), so the
 * races can be staged exactly: a reactivation landing while a suppression is being pushed, a failure
 * after part of the plan was answered, and the marker kept until every provider caught up.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  reactivate,
  type SuppressionRecord,
} from '../../../lambdas/core/suppression/index.js';
import { DEAD_DUE_MS, type MarkerUpdate, type SyncLedger, type SyncView } from '../../../lambdas/core/sync/ledger.js';
import { markDead, type PushDeps, pushChange } from '../../../lambdas/core/sync/push.js';
import type { SyncMap } from '../../../lambdas/core/sync/state.js';
import { SyncTransientError } from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { MemorySyncTarget } from '../../support/memory-sync-target.js';
import { EMAIL, ev, T0 } from '../suppression/support.js';

class MemoryLedger implements SyncLedger {
  view: SyncView;
  beforeCommit?: () => void;
  constructor(record: SuppressionRecord) {
    this.view = { record, sync: {}, change: 1, version: 1, due: 5 };
  }
  /** A record writer: new record, change bumped, marker due again. */
  write(record: SuppressionRecord): void {
    this.view = { ...this.view, record, change: this.view.change + 1, version: this.view.version + 1, due: 7 };
  }
  async read(): Promise<SyncView> {
    return structuredClone(this.view);
  }
  async commit(_email: string, version: number, sync: SyncMap, marker: MarkerUpdate): Promise<boolean> {
    const hook = this.beforeCommit;
    this.beforeCommit = undefined;
    hook?.();
    if (version !== this.view.version) return false;
    const due = marker === 'keep' ? this.view.due : marker === 'clear' ? undefined : marker.due;
    this.view = { ...this.view, sync: structuredClone(sync), version: version + 1, due };
    return true;
  }
}

const complained = () => applyEvent(undefined, ev('complaint', T0), DEFAULT_RATCHET_POLICY).record;

function deps(ledger: MemoryLedger, target: MemorySyncTarget, providers: PushDeps['providers'] = ['ses']): PushDeps {
  return {
    ledger,
    providers,
    now: () => T0 + 100,
    plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
    apply: (_p, op) => target.apply(op),
  };
}

describe('pushChange', () => {
  it('pushes, records the answer, and clears the marker when every provider caught up', async () => {
    const ledger = new MemoryLedger(complained());
    const target = new MemorySyncTarget('ses', { globalLists: () => ['account'] });
    expect((await pushChange(deps(ledger, target), { email: EMAIL, provider: 'ses' })).pushed).toHaveLength(1);
    expect(ledger.view.sync.ses).toMatchObject({ reason: 'complaint', lists: ['account'], change: 1 });
    expect(ledger.view.due).toBeUndefined();
    // Again: nothing to push, nothing written.
    const version = ledger.view.version;
    expect((await pushChange(deps(ledger, target), { email: EMAIL, provider: 'ses' })).pushed).toEqual([]);
    expect(ledger.view.version).toBe(version);
  });

  it('keeps the marker while another configured provider still lags', async () => {
    const ledger = new MemoryLedger(complained());
    await pushChange(deps(ledger, new MemorySyncTarget('ses'), ['ses', 'resend']), { email: EMAIL, provider: 'ses' });
    expect(ledger.view.due).toBe(5);
  });

  it('a reactivation written while the suppression was being pushed is undone in the same message', async () => {
    const record = complained();
    const ledger = new MemoryLedger(record);
    const target = new MemorySyncTarget('ses', { globalLists: () => ['account'] });
    ledger.beforeCommit = () =>
      ledger.write(reactivate(record, { actor: 'ops', reason: 'r', at: T0 + 50 }, DEFAULT_RATCHET_POLICY).record);
    const result = await pushChange(deps(ledger, target), { email: EMAIL, provider: 'ses' });
    expect(result.pushed.map((o) => o.op)).toEqual(['suppress', 'unsuppress']);
    expect(target.has('account', EMAIL)).toBe(false);
    expect(ledger.view.sync.ses).toMatchObject({
      lists: [],
      change: 2,
      reactivation: { auditAt: T0 + 50, removed: ['account'] },
    });
    expect(ledger.view.due).toBeUndefined();
  });

  it('a failure after part of the plan keeps what the provider answered, and the change stays pending', async () => {
    const record = applyEvent(
      complained(),
      { ...ev('unsubscribe', T0 + 1, { provider: 'sendgrid' }), topic: 'sendgrid:group:7' },
      DEFAULT_RATCHET_POLICY,
    ).record;
    const ledger = new MemoryLedger(record);
    const target = new MemorySyncTarget('sendgrid', {
      globalLists: () => ['global'],
      scopePrefixes: ['sendgrid:group:'],
    });
    const d = {
      ...deps(ledger, target, ['sendgrid']),
      plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: (s: string) => s.startsWith('sendgrid:group:') }),
    };
    let calls = 0;
    d.apply = async (_p, op) => {
      if (++calls === 2) throw new SyncTransientError('sendgrid', '503');
      return target.apply(op);
    };
    await expect(pushChange(d, { email: EMAIL, provider: 'sendgrid' })).rejects.toThrow('503');
    expect(ledger.view.sync.sendgrid).toMatchObject({ reason: 'complaint', lists: ['global'] });
    expect(ledger.view.sync.sendgrid?.change).toBeUndefined();
    expect(ledger.view.due).toBe(5);
    // The retry pushes only what is left.
    d.apply = (_p, op) => target.apply(op);
    expect((await pushChange(d, { email: EMAIL, provider: 'sendgrid' })).pushed).toEqual([
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ]);
  });

  it('markDead parks the marker once nobody else lags; a later change makes it due again', async () => {
    const ledger = new MemoryLedger(complained());
    await markDead(
      deps(ledger, new MemorySyncTarget('ses')),
      { email: EMAIL, provider: 'ses' },
      'SyncRefusedError: 401',
    );
    expect(ledger.view.sync.ses?.failed).toEqual({ at: T0 + 100, change: 1, error: 'SyncRefusedError: 401' });
    expect(ledger.view.due).toBe(DEAD_DUE_MS);
  });

  it('a provider that is not configured, or no record: skipped', async () => {
    const ledger = new MemoryLedger(complained());
    expect(await pushChange(deps(ledger, new MemorySyncTarget('ses')), { email: EMAIL, provider: 'resend' })).toEqual({
      pushed: [],
      skipped: true,
    });
  });
});
