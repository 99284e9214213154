/**
 * The unsubscribe endpoint's wiring: a WebhookEdge holding only the `unsubscribe` provider, built by
 * the same `buildEdge` as the webhook edge, so an accepted click is admitted by the same inbox and
 * queue code. Its secret: `UNSUBSCRIBE_SECRET_ARN` (Secrets Manager, cached like the providers') on
 * AWS, `UNSUBSCRIBE_SECRETS` locally.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { EdgeDeps } from '../core/pipeline/edge.js';
import type { SecretSource } from '../core/pipeline/ports.js';
import { UnsubscribeEndpoint } from '../core/unsubscribe/endpoint.js';
import { UNSUBSCRIBE_PROVIDER } from '../core/unsubscribe/provider.js';
import { powertoolsLog } from './observability.js';
import { EnvSecretSource, SecretsManagerSecretSource } from './secrets.js';
import type { Clients, RuntimeConfig } from './wiring/config.js';
import { buildEdge } from './wiring/edge.js';

export function buildUnsubscribeEndpoint(
  config: RuntimeConfig,
  clients: Clients,
  overrides: Partial<EdgeDeps> = {},
): UnsubscribeEndpoint {
  const secrets = overrides.secrets ?? unsubscribeSecretSource(config);
  const now = overrides.now ?? Date.now;
  const log = overrides.log ?? powertoolsLog('ratchet-edge');
  const edge = buildEdge(config, clients, { ...overrides, now, log, secrets, providers: [UNSUBSCRIBE_PROVIDER] });
  return new UnsubscribeEndpoint({ edge, secrets, now, settings: config.settings, log });
}

export function unsubscribeSecretSource(config: RuntimeConfig): SecretSource {
  const env = config.settings;
  if (config.secrets === 'env' || !env.UNSUBSCRIBE_SECRET_ARN) return new EnvSecretSource(env);
  return new SecretsManagerSecretSource(
    new SecretsManagerClient({ region: config.region }),
    env,
    config.secretsCacheSeconds * 1000,
  );
}
