/** The consumer's wiring: the suppression store, with the ratchet policy. It never reads the inbox. */
import type { ConsumerDeps } from '../../core/pipeline/consume.js';
import { policyFromSettings } from '../../core/suppression/index.js';
import { DynamoSuppressionStore } from '../dynamodb-suppressions.js';
import { RUNTIME_VARIABLE } from '../environment.js';
import { powertoolsCounters, powertoolsLog } from '../observability.js';
import type { Clients, RuntimeConfig } from './config.js';

/** Takes only the DynamoDB client: the consumer never talks to SQS itself (the event source does). */
export function buildConsumerDeps(
  config: RuntimeConfig,
  clients: Pick<Clients, 'doc'>,
  overrides: Partial<ConsumerDeps> & { now?: () => number; onSyncChange?: (email: string) => Promise<void> } = {},
): ConsumerDeps {
  const { now = Date.now, onSyncChange, ...rest } = overrides;
  return {
    suppressions: new DynamoSuppressionStore(
      clients.doc,
      config.suppressionTable,
      policyFromSettings(config.settings),
      { now, onSyncChange },
    ),
    log: powertoolsLog('ratchet-consumer', config.settings[RUNTIME_VARIABLE.logLevel]),
    counters: powertoolsCounters('ratchet-consumer', 'Ratchet'),
    ...rest,
  };
}
