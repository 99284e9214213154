/** What the sweeper sends for the pending items it found: one message per provider still lagging. Pure. */
import { laggingProviders } from './ledger.js';
import type { SyncMessage } from './message.js';
import type { SyncMap } from './state.js';
import type { SyncProviderName } from './target.js';

export function sweepMessages(
  items: readonly { email: string; change: number; sync: SyncMap }[],
  providers: readonly SyncProviderName[],
): SyncMessage[] {
  return items.flatMap((item) => {
    const lagging = laggingProviders(item, providers);
    // Nobody lags but the marker is set (the provider list changed since): one message lets the worker clear it.
    const to = lagging.length > 0 ? lagging : providers.slice(0, 1);
    return to.map((provider) => ({ email: item.email, provider }));
  });
}
