/** The sweeper's wiring: the inbox's pending index and the queue. */
import { SWEEPER_BACKOFF } from '../runtime-defaults.js';
import type { SweeperDeps } from '../../core/pipeline/sweep.js';
import { powertoolsCounters, powertoolsLog } from '../observability.js';
import { SqsEventQueue } from '../sqs-queue.js';
import { buildInbox, queueResolver, resendAfterMs, type Clients, type RuntimeConfig } from './config.js';

/** Rows per run: one invocation must stay well inside its timeout. */
const MAX_ROWS_PER_RUN = 1000;

export function buildSweeperDeps(config: RuntimeConfig, clients: Clients, overrides: Partial<SweeperDeps> = {}): SweeperDeps {
  const now = overrides.now ?? Date.now;
  return {
    inbox: buildInbox(config, clients, now),
    queue: new SqsEventQueue(clients.sqs, queueResolver(config)),
    now,
    log: powertoolsLog('ratchet-sweeper'),
    counters: powertoolsCounters('ratchet-sweeper', 'Ratchet'),
    resendAfterMs: resendAfterMs(config),
    maxResendIntervalMs: SWEEPER_BACKOFF.maxResendIntervalSeconds * 1000,
    maxResends: SWEEPER_BACKOFF.maxResends,
    maxRows: MAX_ROWS_PER_RUN,
    ...overrides,
  };
}
