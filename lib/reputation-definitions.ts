/**
 * The reputation evaluator's sizing and schedule, and the counting figures the capacity model reads
 * (re-exported by lib/definitions.ts). Pure data.
 */
import { REPUTATION_TABLE } from '../lambdas/adapters/tables.js';
import { DEFAULT_THRESHOLDS } from '../lambdas/core/reputation/state.js';

export const REPUTATION = {
  /** The evaluator runs this often (an EventBridge rule on AWS, an interval under `npm start`). */
  evaluateEveryMinutes: 5,
  /** One evaluator at a time: it compares and stores states, and two would announce a change twice. */
  reservedConcurrency: 1,
  timeoutSeconds: 60,
  memoryMb: 256,
  topicSuffix: '-reputation',
  defaults: DEFAULT_THRESHOLDS,
  /**
   * Counting (docs/reputation.md): the reputation counter consumes the inbox table's stream (NEW_IMAGE)
   * through an event source mapping, and writes one conditional UpdateItem (1 WCU: cells are ~150 bytes)
   * per cell — provider, sender, hour and stream shard — per batch. Lambda's reads of a DynamoDB stream
   * are free (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CostOptimization_StreamsUsage.html).
   */
  counting: {
    /** Records per invocation: a stream GetRecords returns at most 1,000, and 1,000 images (~2 KB each in the event) stay under Lambda's 6 MB payload. */
    batchSize: 1000,
    /**
     * Lambda gathers a shard's records this long (Lambda's maximum) before invoking: the batch, not the
     * event, pays a write, so a shard must gather about 18 records a batch for counting to stay under
     * $0.10 per million (npm run cost): with 300 s, one event every 16 s a shard. Counts reach the table
     * within 5 minutes, and the evaluator runs every 5 minutes: a state changes within about 10.
     */
    maxBatchingWindowSeconds: 300,
    /**
     * A tumbling window, only so that Lambda names the stream shard in the event (`shardId`): a cell is
     * keyed by it. No state is carried; the window's final invocation per shard costs 4 requests an hour.
     */
    tumblingWindowSeconds: 900,
    /** One batch at a time per shard: a cell's high-water mark needs its shard's records in order. */
    parallelizationFactor: 1,
    /** Then the batch (bisected on each error) goes to the on-failure queue: a poison record never blocks its shard. */
    retryAttempts: 10,
    /** An hour under the stream's 24-hour retention, so a discarded batch reaches the on-failure queue before the stream trims it. */
    maxRecordAgeSeconds: 82_800,
    /**
     * Copies at once: one per stream shard at most (parallelization 1); shards beyond this wait their
     * turn (a throttled batch is retried until its maximum age, never counted against retryAttempts).
     * A copy counts a 1,000-record batch in well under a second, so 4 keep up with thousands of events a second.
     */
    reservedConcurrency: 4,
    timeoutSeconds: 60,
    memoryMb: 256,
    /** The local stand-in for the stream hands its buffer to the same handler this often (`npm start`). */
    localFlushMs: 1000,
    /** One conditional UpdateItem per cell per batch, 1 WCU (a cell is well under 1 KB). */
    writeUnitsPerWrite: 1,
    registryShards: REPUTATION_TABLE.registryShards,
    /** DynamoDB's per-partition limits a sender's counter partition is checked against (npm run capacity). */
    partitionWcuPerSecond: 1000,
  },
} as const;
