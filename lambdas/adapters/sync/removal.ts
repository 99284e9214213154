/**
 * What every adapter answers for a removal (`unsuppress`), in apply and in held alike: the lists named
 * that this provider never receives from Ratchet are refused (recorded, never retried), and the outcome
 * carries the refusals only when there are some.
 */
import type { SyncOutcome } from '../../core/sync/target.js';

export type Refusal = { readonly list: string; readonly why: string };

/** The lists of `lists` that `isOurs` does not claim, each refused as no list Ratchet writes at `provider`. */
export function foreignLists(lists: readonly string[], isOurs: (list: string) => boolean, provider: string): Refusal[] {
  return lists.filter((list) => !isOurs(list)).map((list) => notOurs(list, provider));
}

export function notOurs(list: string, provider: string): Refusal {
  return { list, why: `not a list Ratchet writes at ${provider}` };
}

/** The outcome of a removal: the lists removed, and `refused` when anything was. */
export function removalOutcome(lists: readonly string[], refused: readonly Refusal[]): SyncOutcome {
  return { lists, ...(refused.length > 0 ? { refused } : {}) };
}
