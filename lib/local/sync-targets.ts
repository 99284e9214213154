/**
 * The provider adapters for `npm start`: one SyncTarget per provider in SYNC_PROVIDERS, built from the
 * environment (credentials, settings, endpoint overrides). Every missing credential or required
 * setting refuses the start with one line naming its variable; no key is ever part of a line.
 */
import type { Env } from '../../lambdas/adapters/environment.js';
import { createSyncTargets, readSyncConfig } from '../../lambdas/adapters/sync/index.js';
import { syncSettings } from '../../lambdas/core/sync/settings.js';
import type { SyncProviderName, SyncTarget } from '../../lambdas/core/sync/target.js';
import { StartupError } from './startup-error.js';

export async function localSyncTargets(env: Env): Promise<ReadonlyMap<SyncProviderName, SyncTarget>> {
  const problems: string[] = [];
  try {
    if (syncSettings(env).providers.length === 0) return new Map();
  } catch (error) {
    problems.push((error as Error).message);
  }
  const result = readSyncConfig(env);
  if (!result.ok)
    problems.push(
      ...result.problems.filter(
        (line) => !problems.some((p) => p.startsWith('SYNC_PROVIDERS') && line.startsWith('SYNC_PROVIDERS includes "')),
      ),
    );
  if (problems.length > 0) throw new StartupError(problems.join('\n'));
  if (!result.ok) throw new StartupError(result.problems.join('\n'));
  return new Map(createSyncTargets(result.config).map((target) => [target.provider, target] as const));
}
