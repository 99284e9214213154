/** The inbox stream consumer's wiring: stream records decoded by the inbox adapter, cells on the reputation table. */
import type { ReputationCounterDeps } from '../../core/reputation/stream-count.js';
import { DynamoReputationCells } from '../dynamodb-reputation-cells.js';
import { RUNTIME_VARIABLE as V } from '../environment.js';
import { admittedRecordOf, type InboxStreamRecord } from '../inbox-stream.js';
import { powertoolsLog } from '../observability.js';
import type { Clients, RuntimeConfig } from './config.js';
import { reputationTableName } from './reputation.js';

export const REPUTATION_COUNTER_SERVICE = 'ratchet-reputation-counter';

export function buildReputationCounter(
  config: RuntimeConfig,
  clients: Pick<Clients, 'doc'>,
  overrides: Partial<ReputationCounterDeps<InboxStreamRecord>> = {},
): ReputationCounterDeps<InboxStreamRecord> {
  return {
    decode: admittedRecordOf,
    cells: new DynamoReputationCells(clients.doc, reputationTableName(config)),
    log: powertoolsLog(REPUTATION_COUNTER_SERVICE, config.settings[V.logLevel]),
    ...overrides,
  };
}
