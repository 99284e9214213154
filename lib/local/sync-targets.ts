/**
 * The provider adapters for `npm start`: one SyncTarget per provider in SYNC_PROVIDERS, built from the
 * environment (credentials, settings, endpoint overrides). Every missing credential or required
 * setting refuses the start with one line naming its variable.
 */
import type { Env } from '../../lambdas/adapters/environment.js';
import { syncSettings } from '../../lambdas/core/sync/settings.js';
import type { SyncProviderName, SyncTarget } from '../../lambdas/core/sync/target.js';
import { StartupError } from './startup-error.js';

export async function localSyncTargets(env: Env): Promise<ReadonlyMap<SyncProviderName, SyncTarget>> {
  let providers: SyncProviderName[];
  try {
    providers = syncSettings(env).providers;
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  if (providers.length === 0) return new Map();
  throw new StartupError(`SYNC_PROVIDERS: the provider adapters are not built into this version (${providers.join(', ')})`);
}
