/** The consumer's wiring: the suppression store (with the ratchet policy) and the inbox. */
import type { ConsumerDeps } from '../../core/pipeline/consume.js';
import { policyFromSettings } from '../../core/suppression/index.js';
import { DynamoSuppressionStore } from '../dynamodb-suppressions.js';
import { powertoolsCounters, powertoolsLog } from '../observability.js';
import { buildInbox, type Clients, type RuntimeConfig } from './config.js';

/** Takes only the DynamoDB client: the consumer never talks to SQS itself (the event source does). */
export function buildConsumerDeps(config: RuntimeConfig, clients: Pick<Clients, 'doc'>, overrides: Partial<ConsumerDeps> = {}): ConsumerDeps {
  const now = overrides.now ?? Date.now;
  return {
    inbox: buildInbox(config, clients, now),
    suppressions: new DynamoSuppressionStore(clients.doc, config.suppressionTable, policyFromSettings(config.settings), { now }),
    now,
    log: powertoolsLog('ratchet-consumer'),
    counters: powertoolsCounters('ratchet-consumer', 'Ratchet'),
    ...overrides,
  };
}
