/**
 * The SES feed's wiring: the edge (built exactly as for the webhook route) and the SES dead-letter
 * queue. Its counters are the edge's, so one batch is one EMF record, and they are published under the
 * edge's service name: every edge metric, alarm and dashboard widget (EventsAdmitted, TransientFailures,
 * ConfigurationErrors, ...) counts the feed's deliveries too. Its log lines say `ratchet-ses-feed`.
 */

import type { EdgeDeps } from '../../core/pipeline/edge.js';
import { SesFeed } from '../../core/pipeline/ses-feed.js';
import { RUNTIME_VARIABLE } from '../environment.js';
import { powertoolsCounters, powertoolsLog } from '../observability.js';
import { SqsFeedDeadLetterQueue } from '../sqs-feed-dead-letters.js';
import type { Clients, RuntimeConfig } from './config.js';
import { buildEdge } from './edge.js';

export interface SesFeedWiring {
  /** The SES dead-letter queue's URL, or a resolver (the local runtime learns it from CreateQueue). Default: SES_DEAD_LETTER_QUEUE_URL. */
  deadLetterQueueUrl?: string | (() => Promise<string>);
  edge?: Partial<EdgeDeps>;
}

export function buildSesFeed(config: RuntimeConfig, clients: Clients, wiring: SesFeedWiring = {}): SesFeed {
  const log = wiring.edge?.log ?? powertoolsLog('ratchet-ses-feed', config.settings[RUNTIME_VARIABLE.logLevel]);
  const counters = wiring.edge?.counters ?? powertoolsCounters('ratchet-edge', 'Ratchet');
  const url = wiring.deadLetterQueueUrl ?? config.settings[RUNTIME_VARIABLE.sesDeadLetterQueueUrl];
  // Checked at cold start: without it every message that can never be admitted would be retried.
  if (!url) throw new Error(`${RUNTIME_VARIABLE.sesDeadLetterQueueUrl} is not set`);
  return new SesFeed({
    edge: buildEdge(config, clients, { ...wiring.edge, log, counters }),
    deadLetters: new SqsFeedDeadLetterQueue(clients.sqs, typeof url === 'string' ? () => url : url),
    log,
    counters,
  });
}
