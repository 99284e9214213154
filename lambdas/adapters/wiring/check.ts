/**
 * Every setting the runtime reads, checked in one pass without touching AWS: what `npm start` runs
 * before it starts anything, so a typo fails the start with the variable's name instead of failing
 * requests later. (In Lambda the same parsers run at cold start and on first use.)
 */

import type { ProviderDefinition } from '../../core/provider.js';
import { PROVIDERS } from '../../core/providers/index.js';
import { thresholdsFromSettings } from '../../core/reputation/settings.js';
import { policyFromSettings } from '../../core/suppression/index.js';
import { configFromEnv, type Env } from './config.js';
import { type ConfigurationProblem, checkProviders } from './provider-configuration.js';

const VARIABLE_NAME = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/;

export function checkConfiguration(
  settings: Env,
  providers: readonly ProviderDefinition[] = PROVIDERS,
): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  const attempt = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      problems.push({ variable: VARIABLE_NAME.exec(reason)?.[0] ?? 'configuration', reason });
    }
  };
  attempt(() => configFromEnv(settings));
  attempt(() => policyFromSettings(settings));
  attempt(() => thresholdsFromSettings(settings));
  return [...problems, ...checkProviders(providers, settings)];
}
