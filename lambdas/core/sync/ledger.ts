/**
 * The port between the sync worker and the suppression table, and the outbox rule. The table's
 * adapter owns the attributes; this says only what the worker needs: the record, its `sync` map and
 * sync change counter, and a version-guarded write of the map with the outbox marker.
 *
 * The outbox: every write that changes what a provider should hold (the record's sync projection)
 * bumps `change` and sets the marker due soon, in the same conditional put. The marker stays until
 * every configured provider has caught up with that change (or ran out of retries), so a change can
 * only leave the outbox by being pushed.
 */
import type { SuppressionRecord } from '../suppression/record.js';
import type { SyncMap } from './state.js';
import type { SyncProviderName } from './target.js';

export interface SyncView {
  record: SuppressionRecord;
  sync: SyncMap;
  /** The record's sync change counter (0: no sync-relevant change was ever written). */
  change: number;
  /** The adapter's item version, for the guard. */
  version: number;
  /** When the outbox marker falls due (epoch ms), absent when nothing is pending. */
  due?: number;
}

/** What to do with the outbox marker on a commit. */
export type MarkerUpdate = { due: number } | 'clear' | 'keep';

export interface SyncLedger {
  read(email: string): Promise<SyncView | undefined>;
  /** Writes `sync` (and the marker) only if the item is still at `version`; false when someone wrote first. */
  commit(email: string, version: number, sync: SyncMap, marker: MarkerUpdate): Promise<boolean>;
}

/** A dead change stays indexed (so `sync status` counts it) but never falls due: the largest Date. */
export const DEAD_DUE_MS = 8_640_000_000_000_000;

/** The sync projection: what decides what a provider should hold. A change to it is a sync change. */
export function syncProjection(record: SuppressionRecord | undefined): string {
  // No record holds nothing anywhere: the same as an active record without topics.
  if (record === undefined) return JSON.stringify(['active', null, null, []]);
  const topics = Object.entries(record.topics ?? {})
    .map(([name, state]) => `${name}=${state.status}`)
    .sort();
  return JSON.stringify([record.status, record.reason ?? null, record.reactivatedAt ?? null, topics]);
}

/** Providers that still have to push change `change`: not caught up, and not dead-lettered for it. */
export function laggingProviders(
  view: Pick<SyncView, 'sync' | 'change'>,
  providers: readonly SyncProviderName[],
): SyncProviderName[] {
  return providers.filter((p) => {
    const state = view.sync[p];
    return state?.change !== view.change && state?.failed?.change !== view.change;
  });
}

/**
 * The marker once `sync` is written: cleared when nobody lags; parked (indexed, never due) when what is
 * left is a dead change or a removal the provider refused, so `sync status` can count both.
 */
export function markerAfter(
  view: Pick<SyncView, 'sync' | 'change'>,
  providers: readonly SyncProviderName[],
): MarkerUpdate {
  if (laggingProviders(view, providers).length > 0) return 'keep';
  const parked = providers.some(
    (p) => view.sync[p]?.failed?.change === view.change || (view.sync[p]?.refused?.length ?? 0) > 0,
  );
  return parked ? { due: DEAD_DUE_MS } : 'clear';
}
