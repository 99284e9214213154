/**
 * A sync ledger in memory that counts its reads and commits and can be made to lose every write or
 * forget the record, so the retry bounds, the marker rule and what a failure leaves behind are asserted
 * exactly (push-ledger.test.ts, push-markers.test.ts).
 */
import { applyEvent, DEFAULT_RATCHET_POLICY } from '../../../../lambdas/core/suppression/index.js';
import type { MarkerUpdate, SyncLedger, SyncView } from '../../../../lambdas/core/sync/ledger.js';
import type { SyncMap } from '../../../../lambdas/core/sync/state.js';
import { ev, T0 } from '../../suppression/support.js';

export class CountingLedger implements SyncLedger {
  reads = 0;
  commits: Array<{ version: number; sync: SyncMap; marker: MarkerUpdate }> = [];
  /** Every commit loses the race. */
  conflict = false;
  /** Reads after this many return undefined (the record was deleted). */
  forgetAfter = Number.POSITIVE_INFINITY;
  onCommit?: () => void;
  constructor(public view: SyncView) {}
  async read(): Promise<SyncView | undefined> {
    return ++this.reads > this.forgetAfter ? undefined : structuredClone(this.view);
  }
  async commit(_email: string, version: number, sync: SyncMap, marker: MarkerUpdate): Promise<boolean> {
    // A loop that never gives up would starve the event loop and hang the run instead of failing it.
    if (this.commits.length >= 50) throw new Error('runaway: more than 50 commits');
    this.commits.push(structuredClone({ version, sync, marker }));
    const hook = this.onCommit;
    this.onCommit = undefined;
    hook?.();
    if (this.conflict || version !== this.view.version) return false;
    const due = marker === 'keep' ? this.view.due : marker === 'clear' ? undefined : marker.due;
    this.view = { ...this.view, sync: structuredClone(sync), version: version + 1, due };
    return true;
  }
}

/** A record suppressed by a complaint at T0. */
export const complained = () => applyEvent(undefined, ev('complaint', T0), DEFAULT_RATCHET_POLICY).record;

/** The same record, also opted out of SendGrid group 7 at T0 + 1. */
export const withGroup = () =>
  applyEvent(
    complained(),
    { ...ev('unsubscribe', T0 + 1, { provider: 'sendgrid' }), topic: 'sendgrid:group:7' },
    DEFAULT_RATCHET_POLICY,
  ).record;
