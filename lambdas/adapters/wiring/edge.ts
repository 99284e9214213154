/** The edge's wiring: providers, secrets, certificates, the inbox, the queue and the SNS confirmer. */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type EdgeDeps, WebhookEdge } from '../../core/pipeline/edge.js';
import type { SecretSource } from '../../core/pipeline/ports.js';
import type { CertificateSource } from '../../core/provider.js';
import { PROVIDERS } from '../../core/providers/index.js';
import { DynamoControlLedger } from '../dynamodb-control-ledger.js';
import { DynamoNonceStore } from '../dynamodb-nonces.js';
import { RUNTIME_VARIABLE } from '../environment.js';
import { powertoolsCounters, powertoolsLog } from '../observability.js';
import { MAX_BODY_BYTES } from '../runtime-defaults.js';
import { EnvSecretSource, SecretsManagerSecretSource } from '../secrets.js';
import { HttpsCertificateFetcher, PinnedDirectoryCertificates } from '../sns/certificates.js';
import { SnsSubscriptionConfirmer } from '../sns/confirmer.js';
import { SqsEventQueue } from '../sqs-queue.js';
import { buildInbox, type Clients, inboxTtlSeconds, queueResolver, type RuntimeConfig } from './config.js';
import { reportConfigurationErrors } from './provider-configuration.js';

export function buildEdge(config: RuntimeConfig, clients: Clients, overrides: Partial<EdgeDeps> = {}): WebhookEdge {
  const ttlSeconds = inboxTtlSeconds(config);
  const now = overrides.now ?? Date.now;
  const log = overrides.log ?? powertoolsLog('ratchet-edge', config.settings[RUNTIME_VARIABLE.logLevel]);
  const counters = overrides.counters ?? powertoolsCounters('ratchet-edge', 'Ratchet');
  const { providers, secrets } = reportConfigurationErrors(
    overrides.providers ?? PROVIDERS,
    overrides.secrets ?? secretSource(config),
    config.settings,
    { log, counters },
  );
  return new WebhookEdge({
    inbox: buildInbox(config, clients),
    queue: new SqsEventQueue(clients.sqs, queueResolver(config)),
    nonces: new DynamoNonceStore(clients.doc, config.inboxTable, now),
    certificates: certificateSource(config),
    confirmer: new SnsSubscriptionConfirmer(),
    ledger: new DynamoControlLedger(clients.doc, config.inboxTable, ttlSeconds),
    now,
    settings: config.settings,
    maxBodyBytes: MAX_BODY_BYTES,
    ...overrides,
    log,
    counters,
    providers,
    secrets,
  });
}

function certificateSource(config: RuntimeConfig): CertificateSource {
  const dir = config.settings[RUNTIME_VARIABLE.snsCertDir];
  return dir ? new PinnedDirectoryCertificates(dir) : new HttpsCertificateFetcher();
}

function secretSource(config: RuntimeConfig): SecretSource {
  const env = config.settings;
  const mode =
    config.secrets ??
    (PROVIDERS.some((p) => p.secretArnVariable && env[p.secretArnVariable]) ? 'secrets-manager' : 'env');
  if (mode === 'env') return new EnvSecretSource(env);
  return new SecretsManagerSecretSource(
    new SecretsManagerClient({ region: config.region }),
    env,
    config.secretsCacheSeconds * 1000,
  );
}
