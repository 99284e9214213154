/**
 * A SyncLedger in memory for the worker's unit tests: each address a complaint record with one change
 * pending, committed under the same version guard as the DynamoDB adapter.
 */
import { applyEvent, DEFAULT_RATCHET_POLICY } from '../../../lambdas/core/suppression/index.js';
import type { MarkerUpdate, SyncLedger, SyncView } from '../../../lambdas/core/sync/ledger.js';
import type { SyncMap } from '../../../lambdas/core/sync/state.js';
import { ev, T0 } from '../suppression/support.js';

export class MemorySyncLedger implements SyncLedger {
  readonly views = new Map<string, SyncView>();

  constructor(private readonly defaultDue: number) {}

  add(email: string, due = this.defaultDue): void {
    const record = applyEvent(undefined, ev('complaint', T0, { recipient: email }), DEFAULT_RATCHET_POLICY).record;
    this.views.set(email, { record, sync: {}, change: 1, version: 1, due });
  }

  async read(email: string) {
    const view = this.views.get(email);
    return view && structuredClone(view);
  }

  async commit(email: string, version: number, sync: SyncMap, marker: MarkerUpdate) {
    const view = this.views.get(email)!;
    if (view.version !== version) return false;
    this.views.set(email, {
      ...view,
      sync,
      version: version + 1,
      due: marker === 'keep' ? view.due : marker === 'clear' ? undefined : marker.due,
    });
    return true;
  }
}
