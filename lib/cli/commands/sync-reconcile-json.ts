/**
 * `ratchet sync reconcile --json`: the drift in one stable shape (docs/sync.md "Reconcile"). A field an
 * entry may lack in the provider's list is null, never left out.
 */
import type { ProviderDrift, ReconcileReport } from './sync-reconcile.js';

/** An entry the provider listed, as `--json` prints it: `reason` and `date` always there, null when the list gives none. */
export interface ListedEntryJson {
  email: string;
  list: string;
  reason: string | null;
  /** Epoch ms. */
  date: number | null;
}

/**
 * `--json`'s `providers`: one shape whatever the provider's list carries (a SendGrid spam report has no
 * reason, a SendGrid group entry no date), so a script reads every field without testing for it.
 */
export function driftJson(providers: ReconcileReport['providers']): Record<
  string,
  Omit<ProviderDrift, 'missingInRatchet' | 'informational'> & {
    missingInRatchet: ListedEntryJson[];
    informational: ListedEntryJson[];
  }
> {
  const listed = (m: ProviderDrift['missingInRatchet'][number]): ListedEntryJson => ({
    email: m.email,
    list: m.list,
    reason: m.reason ?? null,
    date: m.date ?? null,
  });
  return Object.fromEntries(
    Object.entries(providers).map(([provider, drift]) => [
      provider,
      {
        missingAtProvider: drift.missingAtProvider.map(({ email, list }) => ({ email, list })),
        missingInRatchet: drift.missingInRatchet.map(listed),
        informational: drift.informational.map(listed),
        refused: drift.refused.map(({ email, list, why }) => ({ email, list, why })),
      },
    ]),
  );
}
