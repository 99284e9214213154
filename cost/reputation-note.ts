/** What `npm run cost` says of reputation counting, beside the $0.10 goal: the mix, one event a request, thin batches. */
import { REPUTATION } from '../lib/definitions.js';
import { type CountingMeasured, countingPerMillion, EDGE_COUNTING_ONE_EVENT_PER_REQUEST } from './reputation.js';

export const REPUTATION_GOAL_PER_MILLION = 0.1;

export function countingNote(perMillion: number, m: CountingMeasured): string {
  const full = REPUTATION.counting.batchSize;
  const thin = (n: number) => `$${countingPerMillion(m, n).toFixed(4)} at ${n} records a batch`;
  return [
    `Reputation counting adds $${perMillion.toFixed(4)} per million events (goal: at most $${REPUTATION_GOAL_PER_MILLION.toFixed(2)}, all in), for this mix and for a provider posting one event a request (Postmark, Mailgun, Resend, generic) alike:`,
    `the inbox stream's consumer counts stream batches, not requests (${full} records a batch; ${m.counterCellsPerBatch} cells of ${m.counterItemBytes} bytes written per batch of the measured rows; ${m.counterBatchMs.toFixed(0)} ms a batch on dynalite, median).`,
    `Batches are thinner when a stream shard sees few events in the mapping's ${REPUTATION.counting.maxBatchingWindowSeconds}-second window: ${thin(100)}, ${thin(10)}.`,
    `Counting at the edge, one write per request, cost $${EDGE_COUNTING_ONE_EVENT_PER_REQUEST.toFixed(4)} per million for a provider posting one event a request.`,
  ].join(' ');
}
