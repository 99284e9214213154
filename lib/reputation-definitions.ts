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
   * For the capacity model: counter writes per admitted event are at most one (a provider posting one
   * event a request), one per request or SES feed batch otherwise (per provider, sender and hour in it);
   * each write is 1 WCU (items ~100 bytes), spread over `counterShards` partitions per sender.
   */
  counting: {
    maxWritesPerEvent: 1,
    writeUnitsPerWrite: 1,
    counterShards: REPUTATION_TABLE.counterShards,
    registryShards: REPUTATION_TABLE.registryShards,
    /** DynamoDB's per-partition write limit, which one sender's counters divide by `counterShards`. */
    partitionWcuPerSecond: 1000,
  },
} as const;
