/** The sweeper's wiring: the inbox's pending index and the queue. */
import { SWEEPER } from '../../../lib/definitions.js';
import type { SweeperDeps } from '../../core/pipeline/sweep.js';
import { DynamoInbox } from '../dynamodb-inbox.js';
import { powertoolsLog } from '../observability.js';
import { SqsEventQueue } from '../sqs-queue.js';
import { inboxTtlSeconds, nonNegativeNumber, queueResolver, type Clients, type RuntimeConfig } from './config.js';

/** Rows per run: one invocation must stay well inside its timeout. */
const MAX_ROWS_PER_RUN = 1000;

export function buildSweeperDeps(config: RuntimeConfig, clients: Clients, overrides: Partial<SweeperDeps> = {}): SweeperDeps {
  const now = overrides.now ?? Date.now;
  return {
    inbox: new DynamoInbox(clients.doc, config.inboxTable, inboxTtlSeconds(config), now),
    queue: new SqsEventQueue(clients.sqs, queueResolver(config)),
    now,
    log: powertoolsLog('ratchet-sweeper'),
    pendingAfterMs:
      nonNegativeNumber(config.settings.SWEEP_AFTER_SECONDS, SWEEPER.pendingAfterSeconds, 'SWEEP_AFTER_SECONDS') * 1000,
    maxRows: MAX_ROWS_PER_RUN,
    ...overrides,
  };
}
