/**
 * Ask before pushing again. A push may have reached the provider without its answer being recorded: the
 * worker died between the provider's answer and the `sync` write (a kill -9, a Lambda timeout), so the
 * message comes back (a redelivery) or the sweeper sends the item again. Planning from the record alone
 * would push it a second time. Such a message carries `recheck` (or arrives with a receive count above
 * one), and each operation is then preceded by a read at the provider: when the provider already holds
 * what the operation would leave, its answer is recorded as if pushed and nothing is pushed.
 *
 * A first message asks nothing: the first push of a change stays one provider call. A lookup goes
 * through the same gate as a push and fails the same way (a 429 waits, a 5xx counts toward the horizon).
 */
import type { SyncOperation, SyncOutcome, SyncProviderName } from './target.js';

/**
 * One message's pass through the gate. `turnAtMs`: the rate slot reserved for it (its `turn`), for its
 * first provider call; the gate clears it once used. `started`: a call of this message has run, so its
 * next (the push after a lookup, a second operation) follows at the next free slot, not at the back of
 * the line: sent round again, it would make its first call again and never reach the second.
 */
export interface CallTicket {
  turnAtMs?: number;
  started?: boolean;
}

export interface AskFirstDeps {
  /** Calls the provider (through its rate gate). */
  apply: (provider: SyncProviderName, operation: SyncOperation, ticket?: CallTicket) => Promise<SyncOutcome>;
  /** Reads the provider (through the same gate); absent, or undefined from it: the provider cannot be asked. */
  held?: (
    provider: SyncProviderName,
    operation: SyncOperation,
    ticket?: CallTicket,
  ) => Promise<SyncOutcome | undefined>;
}

export interface AppliedOnce {
  outcome: SyncOutcome;
  /** True when the provider already held it and nothing was pushed. */
  found: boolean;
}

export async function applyOnce(
  deps: AskFirstDeps,
  provider: SyncProviderName,
  operation: SyncOperation,
  recheck: boolean,
  ticket?: CallTicket,
): Promise<AppliedOnce> {
  if (recheck && deps.held !== undefined) {
    const outcome = await deps.held(provider, operation, ticket);
    if (outcome !== undefined) return { outcome, found: true };
  }
  return { outcome: await deps.apply(provider, operation, ticket), found: false };
}
