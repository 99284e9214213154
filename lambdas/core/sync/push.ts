/**
 * One push: bring one provider in line with one address's record. Reads the record, plans, calls the
 * provider, records every answer in the `sync` map with a version-guarded write, and re-plans if the
 * record moved meanwhile (a reactivation that landed while a suppression was being pushed is undone
 * in the same message). Transport-neutral: the SQS handler around it decides retries and dead letters.
 */
import { TransientError } from '../errors.js';
import { type AskFirstDeps, applyOnce, type CallTicket } from './ask-first.js';
import { leased, wasLeased } from './lease.js';
import { DEAD_DUE_MS, laggingProviders, markerAfter, type SyncLedger, type SyncView } from './ledger.js';
import type { SyncMessage } from './message.js';
import { type PlanContext, planSync } from './plan.js';
import { exhausted } from './retry.js';
import { type ProviderSyncState, recordOutcome, type SyncMap } from './state.js';
import type { SyncOperation, SyncProviderName } from './target.js';

export interface PushDeps extends AskFirstDeps {
  ledger: SyncLedger;
  /** The configured providers: the marker is cleared only when all of them caught up. */
  providers: readonly SyncProviderName[];
  plan: (provider: SyncProviderName) => PlanContext;
  now: () => number;
}

export interface PushResult {
  /** Operations the provider accepted. */
  pushed: SyncOperation[];
  /** Operations a `recheck` found already done at the provider (ask-first.ts): recorded, not pushed. */
  found?: SyncOperation[];
  /** The record is absent, or the provider is not configured: nothing to do. */
  skipped?: boolean;
}

const MAX_ROUNDS = 10;

export async function pushChange(deps: PushDeps, message: SyncMessage): Promise<PushResult> {
  const { provider, email } = message;
  if (!deps.providers.includes(provider)) return { pushed: [], skipped: true };
  const pushed: SyncOperation[] = [];
  const found: SyncOperation[] = [];
  const ticket: CallTicket = message.turn === undefined ? {} : { turnAtMs: message.turn };
  // What this call learned from the provider; survives re-reads, since the provider holds it whatever version we read.
  let learned: ProviderSyncState | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const view = await deps.ledger.read(email);
    if (view === undefined) return { pushed, skipped: true };
    let state = learned ?? view.sync[provider];
    const operations = planSync(view.record, state, deps.plan(provider));
    try {
      for (const operation of operations) {
        const done = await applyOnce(deps, provider, operation, message.recheck === true, ticket);
        const outcome = done.outcome;
        state = recordOutcome(
          state,
          operation,
          outcome,
          deps.now(),
          operation.op === 'unsuppress' ? view.record.reactivatedAt : undefined,
        );
        learned = state;
        (done.found ? found : pushed).push(operation);
      }
    } catch (error) {
      if (learned !== undefined) await saveProgress(deps, email, provider, learned).catch(() => undefined);
      throw error;
    }
    const caughtUp: ProviderSyncState = { ...(state ?? { at: deps.now(), lists: [] }), change: view.change };
    delete caughtUp.failed;
    delete caughtUp.retrying;
    if (operations.length === 0 && sameState(view.sync[provider], caughtUp) && !markerStale(view, deps.providers))
      return withFound(pushed, found);
    if (await commit(deps, view, provider, caughtUp)) return withFound(pushed, found);
  }
  throw new TransientError('sync write kept conflicting; the message will be retried');
}

function withFound(pushed: SyncOperation[], found: SyncOperation[]): PushResult {
  return found.length > 0 ? { pushed, found } : { pushed };
}

/** Records a change that ran out of retries: `failed` on the provider's state, the marker parked once nobody else lags. */
export async function markDead(
  deps: Pick<PushDeps, 'ledger' | 'providers' | 'now'>,
  message: SyncMessage,
  error: string,
): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const view = await deps.ledger.read(message.email);
    if (view === undefined) return;
    const { retrying: _retrying, ...current } = view.sync[message.provider] ?? { at: deps.now(), lists: [] };
    const state: ProviderSyncState = {
      ...current,
      failed: { at: deps.now(), change: view.change, error: error.slice(0, 200) },
    };
    if (await commit(deps, view, message.provider, state)) return;
  }
  throw new TransientError('sync write kept conflicting while recording a dead letter');
}

/**
 * After a counted failure (5xx, network, timeout) of an attempt made at `attemptAt`: 'dead' once the
 * change's first counted failure at this provider is `horizonMs` old, else 'retry', with that first
 * failure recorded on the provider's state (`retrying`) and the marker moved past the next attempt
 * (`leaseUntil`) in the same write. The horizon is the record's, not the message's: a message queued
 * behind a backlog, or sent again by `sync retry`, starts no clock of its own.
 */
export async function recordRetry(
  deps: Pick<PushDeps, 'ledger' | 'now'>,
  message: SyncMessage,
  attemptAt: number,
  options: { horizonMs: number; leaseUntil: number },
): Promise<'dead' | 'retry'> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const view = await deps.ledger.read(message.email);
    if (view === undefined) return 'retry';
    const current = view.sync[message.provider];
    const started = current?.retrying?.change === view.change ? current.retrying.since : undefined;
    const since = started ?? attemptAt;
    if (exhausted(since, deps.now(), options.horizonMs)) return 'dead';
    const extend = view.due !== undefined && view.due < options.leaseUntil;
    if (started !== undefined && !extend) return 'retry';
    const state: ProviderSyncState = {
      ...(current ?? { at: deps.now(), lists: [] }),
      retrying: { change: view.change, since },
    };
    const sync = { ...view.sync, [message.provider]: state };
    if (await deps.ledger.commit(message.email, view.version, sync, extend ? { due: options.leaseUntil } : 'keep'))
      return 'retry';
  }
  throw new TransientError('sync write kept conflicting while recording a retry');
}

/**
 * A wait (a 429, a reset header, the shared pause) of `waitMs` before the next attempt at `leaseUntil`.
 * The outbox marker moves past that attempt, so the sweeper does not send a second copy of a message
 * that is only waiting. A change already retrying at this provider (a 5xx came first) has its horizon's
 * start moved forward by the wait, so waiting never counts toward SYNC_RETRY_SECONDS, however long a
 * storm of 429s follows a failure. Best effort: after a write that keeps losing, a lost extension costs
 * one duplicate message, and a lost credit counts that one wait.
 */
export async function recordWait(
  deps: Pick<PushDeps, 'ledger'>,
  message: SyncMessage,
  options: { waitMs: number; leaseUntil: number },
): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const view = await deps.ledger.read(message.email);
    if (view === undefined) return;
    const { sync, credited } = creditWait(view, message.provider, options.waitMs);
    const extend = view.due !== undefined && view.due < options.leaseUntil;
    if (!credited && !extend) return;
    if (await deps.ledger.commit(message.email, view.version, sync, extend ? { due: options.leaseUntil } : 'keep'))
      return;
  }
}

/**
 * A wait in the outbox (SyncProviderBacklogError): the message is not sent again; the marker is set to
 * `dueAt`, when the sweeper sends the change again, and a change already retrying has its horizon's start
 * moved forward by the wait, as in recordWait. Set, not only moved forward: a lease the sweeper wrote
 * while the queue was deep guessed how long this message would wait there, and it waits there no more;
 * only moved forward while another provider lags, since that lease is also its message's. A change
 * dead-lettered here and sent again by `sync retry` (its marker parked) is pending again: its `failed` is
 * dropped and the marker set. False when no sweep would send it (no live marker, and this provider does
 * not lag): the caller then keeps the message going round the queue.
 *
 * The marker keeps saying whether a message may have been pushed unrecorded (lease.ts): this message
 * says so for its own provider (`recheck`); a lease says so for the others, so it stays a lease while
 * another provider lags. Otherwise it is whole, and the sweeper's message asks the provider nothing.
 */
export async function recordDeferral(
  deps: Pick<PushDeps, 'ledger' | 'providers'>,
  message: SyncMessage,
  options: { waitMs: number; dueAt: number },
): Promise<boolean> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const view = await deps.ledger.read(message.email);
    if (view === undefined) return true;
    // A change `sync retry` put back was dead-lettered here: pending again, so it waits on a live marker too.
    const current = retried(view, message.provider);
    const live = view.due !== undefined && view.due < DEAD_DUE_MS ? view.due : undefined;
    const lagging = laggingProviders(current, deps.providers);
    if (live === undefined && !lagging.includes(message.provider)) return false;
    const { sync, credited } = creditWait(current, message.provider, options.waitMs);
    const others = lagging.some((p) => p !== message.provider);
    const asks = message.recheck === true || (others && live !== undefined && wasLeased(live));
    // Never earlier while another provider lags: its message may wait in the queue (a 429, a turn), and a
    // sweep before the lease written for it would send it a second.
    const at = others && live !== undefined ? Math.max(live, options.dueAt) : options.dueAt;
    const due = asks ? leased(at) : Math.floor(at);
    if (!credited && due === view.due && current === view) return true;
    if (await deps.ledger.commit(message.email, view.version, sync, { due })) return true;
  }
  return false;
}

/** The view with this provider's dead letter for the current change dropped (`sync retry` sent it again). */
function retried(view: SyncView, provider: SyncProviderName): SyncView {
  const { failed, ...rest } = view.sync[provider] ?? { at: 0, lists: [] };
  if (failed?.change !== view.change) return view;
  return { ...view, sync: { ...view.sync, [provider]: rest } };
}

/** A change retrying at this provider has its horizon's start moved forward by a wait: waiting never counts. */
function creditWait(view: SyncView, provider: SyncProviderName, waitMs: number): { sync: SyncMap; credited: boolean } {
  const current = view.sync[provider];
  const retrying = current?.retrying?.change === view.change ? current.retrying : undefined;
  if (!retrying) return { sync: view.sync, credited: false };
  return {
    sync: { ...view.sync, [provider]: { ...current, retrying: { ...retrying, since: retrying.since + waitMs } } },
    credited: true,
  };
}

async function saveProgress(
  deps: PushDeps,
  email: string,
  provider: SyncProviderName,
  state: ProviderSyncState,
): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const view = await deps.ledger.read(email);
    if (view === undefined) return;
    const { change: _change, ...partial } = state;
    const keepChange = view.sync[provider]?.change;
    const next: ProviderSyncState = keepChange === undefined ? partial : { ...partial, change: keepChange };
    if (await deps.ledger.commit(email, view.version, { ...view.sync, [provider]: next }, 'keep')) return;
  }
}

async function commit(
  deps: Pick<PushDeps, 'ledger' | 'providers'>,
  view: SyncView,
  provider: SyncProviderName,
  state: ProviderSyncState,
): Promise<boolean> {
  const sync = { ...view.sync, [provider]: state };
  return deps.ledger.commit(
    view.record.email,
    view.version,
    sync,
    markerAfter({ sync, change: view.change }, deps.providers),
  );
}

/** The marker is set although nobody lags any more (the provider list changed): the commit clears it. */
function markerStale(view: SyncView, providers: readonly SyncProviderName[]): boolean {
  const marker = markerAfter(view, providers);
  return view.due !== undefined && marker !== 'keep' && (marker === 'clear' || marker.due !== view.due);
}

function sameState(a: ProviderSyncState | undefined, b: ProviderSyncState): boolean {
  if (a === undefined) return false;
  const { at: _a, ...x } = a;
  const { at: _b, ...y } = b;
  return JSON.stringify(sortKeys(x)) === JSON.stringify(sortKeys(y));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}
