/** What `npm run cost` says of reputation counting, beside the $0.10 goal: the mix, one event a request, thin batches. */
import { REPUTATION } from '../lib/definitions.js';
import { type CountingMeasured, countingPerMillion, EDGE_COUNTING_ONE_EVENT_PER_REQUEST } from './reputation.js';

export const REPUTATION_GOAL_PER_MILLION = 0.1;
const MONTH_SECONDS = 30 * 86_400;

export function countingNote(perMillion: number, m: CountingMeasured): string {
  const { batchSize, maxBatchingWindowSeconds: window } = REPUTATION.counting;
  const at = (n: number) => countingPerMillion(m, n);
  // The fewest records a batch that keep counting under the goal, and what a shard costs a month below it.
  let floor = 1;
  while (floor < batchSize && at(floor) > REPUTATION_GOAL_PER_MILLION) floor++;
  const batchesPerMonth = MONTH_SECONDS / window;
  const idleShardMonth = (at(1) / 1e6) * batchesPerMonth;
  return [
    `Reputation counting adds $${perMillion.toFixed(4)} per million events (goal: at most $${REPUTATION_GOAL_PER_MILLION.toFixed(2)}, all in), for this mix and for a provider posting one event a request (Postmark, Mailgun, Resend, generic) alike:`,
    `the inbox stream's consumer counts stream batches, not requests (${batchSize} records a batch; ${m.counterCellsPerBatch} cells of ${m.counterItemBytes} bytes written per batch of the measured rows; ${m.counterBatchMs.toFixed(0)} ms a batch on dynalite, median).`,
    `A batch is thinner when a stream shard sees fewer than ${batchSize} events in the mapping's ${window}-second window: $${at(100).toFixed(4)} per million at 100 records a batch, $${at(10).toFixed(4)} at 10.`,
    `It stays under the goal from ${floor} records a batch (one event every ${(window / floor).toFixed(0)} s on a shard); below that a shard costs at most $${idleShardMonth.toFixed(4)} a month, whatever it counts (one batch a window).`,
    `Counting at the edge, one write per request, cost $${EDGE_COUNTING_ONE_EVENT_PER_REQUEST.toFixed(4)} per million for a provider posting one event a request.`,
  ].join(' ');
}
