/**
 * Reputation counting in the capacity model: the inbox stream's shards, the counter's busy copies (one
 * per shard at most, reserved concurrency REPUTATION.counting.reservedConcurrency) and the writes on
 * one sender's counter partition (`c#<provider>#<sender>`), the worst case being a deployment whose
 * every event is one sender's. Pure arithmetic on lib/definitions.ts and the measured batch time.
 *
 * A stream has about one shard per table partition, and a partition takes 1,000 WCU/s and holds 10 GB
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html): the
 * inbox keeps `DEFAULT_INBOX_TTL_DAYS` of rows of at most 1 KB, so at steady state its size, not its
 * write rate, sets the shards. Each shard's consumer invokes once its batch is full or its window has
 * passed, and writes each of the batch's cells once: a sender's partition takes about
 * `events/s ÷ batchSize + shards ÷ window` writes a second.
 */
import { DEFAULT_INBOX_TTL_DAYS, REPUTATION } from '../lib/definitions.js';

const C = REPUTATION.counting;
/** An inbox row is at most 1 KB (lambdas/adapters/dynamodb-inbox.ts: one write unit a put). */
const INBOX_ROW_BYTES = 1024;
const PARTITION_BYTES = 10 * 1024 ** 3;
const PARTITION_WCU = 1000;

/** Stream shards of the inbox at a steady `eventsIn` events/s (one row each, kept the inbox's lifetime). */
export function inboxStreamShards(eventsIn: number): number {
  const stored = eventsIn * DEFAULT_INBOX_TTL_DAYS * 86_400 * INBOX_ROW_BYTES;
  return Math.max(1, Math.ceil(eventsIn / PARTITION_WCU), Math.ceil(stored / PARTITION_BYTES));
}

/** Counter invocations a second: each shard's batches, full or closed by the window. */
export function counterBatchesPerSecond(eventsIn: number): number {
  if (eventsIn <= 0) return 0;
  const shards = inboxStreamShards(eventsIn);
  return Math.min(eventsIn, eventsIn / C.batchSize + shards / C.maxBatchingWindowSeconds);
}

/** Writes a second on one sender's counter partition when every event is that sender's (one cell a batch). */
export function senderPartitionWrites(eventsIn: number): number {
  return counterBatchesPerSecond(eventsIn) * C.writeUnitsPerWrite;
}

/** Assumed: a batch's cell writes on DynamoDB, a few ms each with several in flight (cost/reputation.ts says the same). */
const WRITE_ROUND_TRIP_SECONDS = 0.02;

/**
 * Busy counter copies (Little's law): the measured time per record for every event, plus a round trip
 * of cell writes per batch; at most one per shard.
 */
export function counterCopies(eventsIn: number, batchMs: number, batch: number): number {
  const busy = (eventsIn * batchMs) / batch / 1000 + counterBatchesPerSecond(eventsIn) * WRITE_ROUND_TRIP_SECONDS;
  return Math.min(inboxStreamShards(eventsIn), busy);
}
