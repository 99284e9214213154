/**
 * The runtime's facts about its tables and queues: physical names, keys and attributes the adapters
 * write. Pure data (no SDK, no CDK), owned here so the Lambdas and the public `isSuppressed` client
 * need nothing from the assembly layer; `lib/definitions.ts` re-exports them for the stack.
 */

/**
 * Physical names start with this prefix (CDK context `resourcePrefix`), so two stacks can share an
 * account and region. The defaults below are the names with the default prefix, which is what the
 * local runtime, the CLI and `isSuppressed` fall back to when no name is given.
 */
export const DEFAULT_RESOURCE_PREFIX = 'ratchet';

/** The queue's names: the stack's sizing of it lives in lib/definitions.ts. */
export const QUEUE_NAMES = {
  defaultName: 'ratchet-events',
  deadLetterSuffix: '-dlq',
} as const;

/** The SES feed's queue names, after the resource prefix. */
export const SES_QUEUE_NAMES = {
  feedSuffix: '-ses-notifications',
  deadLetterSuffix: '-ses-dead-letters',
} as const;

/** Physical names for a prefix: the tables, the queue and its DLQ, and each provider's secret. */
export function resourceNames(prefix: string = DEFAULT_RESOURCE_PREFIX) {
  return {
    inboxTable: `${prefix}-inbox`,
    suppressionTable: `${prefix}-suppressions`,
    reputationTable: `${prefix}-reputation`,
    /** Where the reputation counter's event source mapping sends a batch of the inbox stream it gave up on. */
    reputationFailureQueue: `${prefix}-reputation-failures`,
    queue: `${prefix}-events`,
    deadLetterQueue: `${prefix}-events${QUEUE_NAMES.deadLetterSuffix}`,
    /** The SES feed: the SES topic's SQS subscription (env `SES_QUEUE_NAME` locally). */
    sesQueue: `${prefix}${SES_QUEUE_NAMES.feedSuffix}`,
    /**
     * Every SES message that was not admitted: what SNS could not deliver to the SES route, what the feed
     * found never admittable, and what used up the feed's receives (env `SES_DEAD_LETTER_QUEUE` holds this name).
     */
    sesDeadLetterQueue: `${prefix}${SES_QUEUE_NAMES.deadLetterSuffix}`,
    secret: (provider: string) => `${prefix}/${provider}`,
  };
}

/** Inbox: one row per admitted event, keyed `provider#eventId`; also holds Mailgun token claims. */
export const INBOX_TABLE = {
  defaultName: 'ratchet-inbox',
  partitionKey: 'pk',
  /** Epoch seconds. DynamoDB TTL may lag by up to 48 h, so every condition also treats `expiresAt < now` as absent. */
  ttlAttribute: 'expiresAt',
} as const;

/** Suppression list: the public contract sending code reads (docs/suppression-table.md). */
export const SUPPRESSION_TABLE = {
  defaultName: 'ratchet-suppressions',
  partitionKey: 'email',
} as const;

/**
 * Reputation: hourly outcome counters per provider and sender, and one registry row per sender (its
 * stored state). Owned by lambdas/adapters/dynamodb-reputation*.ts; the console reads it through them.
 */
export const REPUTATION_TABLE = {
  defaultName: 'ratchet-reputation',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds: counters live the 7-day window and a day more; a registry row as long after its sender's last event. */
  ttlAttribute: 'expiresAt',
  /**
   * Counters: one partition per (provider, sender), `c#<provider>#<sender>`, a cell per hour and inbox
   * stream shard under it (reputation-keys.ts). DynamoDB caps a partition at 1,000 WCU/s
   * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html).
   * The stream consumer writes a cell once per batch (up to 1,000 records, or 5 minutes of them) and stream
   * shard, never once per event, so one sender at 2,000 events/s puts about 2,000 / 1,000 full batches
   * plus one per shard every 5 minutes on its partition: a handful of writes a second (npm run capacity
   * prints it). Reading a window is one Query of its cells (an hour has one per shard that counted in it).
   */
  /** Registry partitions (a sender's row lives on hash(sender) mod this): read 4 Queries a listing. */
  registryShards: 4,
  counterTtlDays: 8,
} as const;

/**
 * Inbox rows live 30 days by default: far beyond every provider's retry horizon (SendGrid 24 h, Mailgun
 * 8 h, SNS over HTTPS 1 h) and the age an SNS message may reach through the SES feed (a day less).
 * Spelled in the core, which derives SNS_MAX_AGE_SECONDS's default from it.
 */
export { DEFAULT_INBOX_TTL_DAYS } from '../core/inbox-ttl.js';
