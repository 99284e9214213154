/**
 * The deployment as rates: for a send rate, what reaches each queue, what each one serves, how many
 * copies of each function are busy (Little's law), and the reads and writes each table and index
 * takes. Every stage passes on at most what it can serve, so a downstream stage never sees more than
 * its upstream's service rate. Pure: the facts, durations and profile come in, numbers go out.
 */
import { SYNC_MAX_BATCH } from '../lambdas/adapters/sync/index.js';
import { SYNC_DEFAULT_LIMITS } from '../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../lambdas/core/sync/target.js';
import { eventsPerRecipient, type TrafficProfile } from './profiles.js';
import { counterCopies, inboxStreamShards, senderPartitionWrites } from './reputation.js';
import type { CapacityFacts, SourceFacts } from './template.js';

/** Per-invocation durations, ms, and the batch each was measured on. */
export interface Durations {
  edgeSendgridBatchMs: number;
  edgeSendgridBatch: number;
  feedBatchMs: number;
  feedBatch: number;
  consumerBatchMs: number;
  consumerBatch: number;
  syncWorkerMsPerMessage: number;
  /** The reputation counter on a batch of the inbox stream (absent in an older durations file: assumed 1 s a batch of 1,000). */
  reputationCounterBatchMs?: number;
  reputationCounterBatch?: number;
}

/**
 * Write and read units per operation. Inbox rows are at most 1 KB (1 write unit); the worker's
 * UpdateItem of a suppression record is 2 (records up to 2 KB, as cost/sync.ts counts them). The
 * consumer's read is counted for every event, an upper bound: a suppressing event on a new address is
 * written without one (DynamoSuppressionStore's create-first put). One on a known address, rare since
 * sending code checks the list before it mails, pays a refused put (a write unit) instead of the read.
 */
export const UNITS = { inboxPut: 1, consumerWrite: 1, consumerRead: 1, workerUpdate: 2, indexEntry: 1 } as const;

/**
 * How often a worker copy touches its provider's shared row (`sync#<provider>` in the inbox table):
 * the pause is read at most once a second (sync-gate.ts), the last success written at most once every
 * 10 s (dynamodb-sync-providers.ts).
 */
export const PROVIDER_ROW = { readsPerSecondPerCopy: 1, writesPerSecondPerCopy: 0.1 } as const;

/**
 * Extension point: hot keys other features add (counters, for example), each with the writes it takes
 * per recipient sent (or, when not linear in it, a function of the events admitted a second) and the
 * table it lives in; the model reports them beside its own and checks them against the partition limit.
 */
export interface ExtraHotKey {
  table: string;
  key: string;
  writesPerSend: number;
  shards: number;
  /** Writes a second on the key at `eventsIn` events admitted a second, instead of `writesPerSend`. */
  writesAt?: (eventsIn: number) => number;
  note?: string;
}
export const EXTRA_HOT_KEYS: ExtraHotKey[] = [
  {
    table: 'reputation',
    key: "c#<provider>#<sender> (every event one sender's)",
    writesPerSend: 0,
    shards: 1,
    writesAt: senderPartitionWrites,
    note: 'one cell write per stream batch and shard (capacity/reputation.ts)',
  },
];

export interface Pipeline {
  /** Seconds one copy spends per message (a batch's duration over its size). */
  secondsPerMessage: { feed: number; consumer: number; sync: number; edgePerRequest: number };
  /** Messages per second each stage serves at most. */
  serviceRate: { feed: number; consumer: number; syncWorker: number; sync: Record<string, number> };
  /** The worker's own pace per provider (rate per copy × copies), before its CPU: requests a second. */
  syncPace: Record<string, number>;
  /** Changes one request carries once the pace binds (sync-batcher.ts), at least: 1 where nothing batches. */
  syncPerRequest: Record<string, number>;
  /** Rates at send rate `s` (recipients per second), steady state. */
  at(s: number): Rates;
}

export interface Rates {
  send: number;
  feedIn: number;
  feedOut: number;
  frontRequests: number;
  frontAdmittedEvents: number;
  eventsIn: number;
  consumerOut: number;
  syncChanges: number;
  syncIn: Record<string, number>;
  syncOut: Record<string, number>;
  concurrency: { edge: number; feed: number; consumer: number; syncWorker: number; reputationCounter: number };
  /** The inbox stream's shards, which the reputation counter reads one copy each. */
  streamShards: number;
  inFlight: { feed: number; events: number; sync: number };
  writes: { inboxTable: number; suppressionTable: number; syncIndexHottest: number; extra: number[] };
  reads: { suppressionTable: number };
}

export function buildPipeline(
  facts: CapacityFacts,
  d: Durations,
  profile: TrafficProfile,
  options: { syncIndexShards: number },
): Pipeline {
  const ev = eventsPerRecipient(profile);
  const providers = profile.syncProviders;
  const perMessage = (batchMs: number, batch: number) => batchMs / 1000 / batch;
  const secondsPerMessage = {
    feed: perMessage(d.feedBatchMs, d.feedBatch),
    consumer: perMessage(d.consumerBatchMs, d.consumerBatch),
    sync: d.syncWorkerMsPerMessage / 1000,
    edgePerRequest: perMessage(d.edgeSendgridBatchMs, d.edgeSendgridBatch) * profile.webhookBatch,
  };
  const rateOf = (source: SourceFacts | undefined, seconds: number) =>
    source ? source.maxConcurrency / seconds : Number.POSITIVE_INFINITY;
  const worker = facts.syncWorker;
  const workerRate = rateOf(worker, secondsPerMessage.sync);
  const syncPace: Record<string, number> = {};
  const syncPerRequest: Record<string, number> = {};
  const sync: Record<string, number> = {};
  for (const p of providers) {
    // The worker's rate per copy as the template sets it (context syncRates over the copies), else the default.
    const perCopy = (facts.syncLimits ?? SYNC_DEFAULT_LIMITS)[p as SyncProviderName].rate;
    syncPace[p] = perCopy * (worker?.maxConcurrency ?? 0);
    // Once the pace binds, a request carries the pushes that wait for it, up to the provider's cap, drawn
    // from one copy's receive batch, which every provider shares: counted at its even share, the least.
    syncPerRequest[p] = Math.max(
      1,
      Math.min(SYNC_MAX_BATCH[p as SyncProviderName], Math.floor((worker?.batchSize ?? 1) / providers.length)),
    );
    // One queue for every provider: the worker's copies are shared, so each gets its share of them.
    sync[p] = Math.min(syncPace[p] * syncPerRequest[p], workerRate / providers.length);
  }
  const serviceRate = {
    feed: rateOf(facts.feed, secondsPerMessage.feed),
    consumer: rateOf(facts.consumer, secondsPerMessage.consumer),
    syncWorker: workerRate,
    sync,
  };
  // The front door takes the lesser of its route throttle (API Gateway) and what the edge's reserved
  // concurrency can serve; past it a sender gets 429 or 500 and retries.
  const frontCap = Math.min(
    facts.front.kind === 'api-gateway' ? (facts.front.webhookRateLimit ?? Number.POSITIVE_INFINITY) : Infinity,
    (facts.front.edgeReservedConcurrency ?? Number.POSITIVE_INFINITY) / secondsPerMessage.edgePerRequest,
  );
  const busy = (rate: number, seconds: number, max: number) => Math.min(max, rate * seconds);

  const at = (s: number): Rates => {
    const feedIn = s * ev.total * profile.feedShare;
    const feedOut = facts.feed ? Math.min(feedIn, serviceRate.feed) : 0;
    const frontEvents = s * ev.total * (1 - profile.feedShare) + (facts.feed ? 0 : feedIn);
    const frontRequests = frontEvents / profile.webhookBatch;
    const frontAdmittedEvents = Math.min(frontRequests, frontCap) * profile.webhookBatch;
    const eventsIn = feedOut + frontAdmittedEvents;
    const consumerOut = Math.min(eventsIn, serviceRate.consumer);
    const syncChanges = ev.total > 0 ? (consumerOut * ev.syncChanges) / ev.total : 0;
    const syncIn: Record<string, number> = {};
    const syncOut: Record<string, number> = {};
    for (const p of providers) {
      syncIn[p] = worker ? syncChanges : 0;
      syncOut[p] = Math.min(syncIn[p], sync[p]!);
    }
    const syncMessagesIn = Object.values(syncIn).reduce((n, x) => n + x, 0);
    const syncMessagesOut = Object.values(syncOut).reduce((n, x) => n + x, 0);
    const concurrency = {
      edge: Math.min(frontRequests, frontCap) * secondsPerMessage.edgePerRequest,
      feed: facts.feed ? busy(feedIn, secondsPerMessage.feed, facts.feed.maxConcurrency) : 0,
      consumer: busy(eventsIn, secondsPerMessage.consumer, facts.consumer.maxConcurrency),
      syncWorker: worker ? busy(syncMessagesIn, secondsPerMessage.sync, worker.maxConcurrency) : 0,
      reputationCounter: counterCopies(eventsIn, d.reputationCounterBatchMs ?? 1000, d.reputationCounterBatch ?? 1000),
    };
    // Received and not yet deleted: a batch per busy copy (rounded up: a copy holds a whole batch).
    const inFlight = {
      feed: facts.feed ? Math.ceil(concurrency.feed) * facts.feed.batchSize : 0,
      events: Math.ceil(concurrency.consumer) * facts.consumer.batchSize,
      sync: worker ? Math.ceil(concurrency.syncWorker) * worker.batchSize : 0,
    };
    const consumerWrites = ev.total > 0 ? (consumerOut * ev.writes) / ev.total : 0;
    return {
      send: s,
      feedIn,
      feedOut,
      frontRequests,
      frontAdmittedEvents,
      eventsIn,
      consumerOut,
      syncChanges,
      syncIn,
      syncOut,
      concurrency,
      streamShards: inboxStreamShards(eventsIn),
      inFlight,
      writes: {
        inboxTable:
          eventsIn * UNITS.inboxPut +
          (worker ? providers.length * worker.maxConcurrency * PROVIDER_ROW.writesPerSecondPerCopy : 0),
        suppressionTable: consumerWrites * UNITS.consumerWrite + syncMessagesOut * UNITS.workerUpdate,
        // Each change writes its marker into the index, and each provider's push rewrites the entry (the
        // index projects `sync`); the last one removes it. All on the shard the record hashed to.
        syncIndexHottest: worker ? ((syncChanges + syncMessagesOut) * UNITS.indexEntry) / options.syncIndexShards : 0,
        extra: EXTRA_HOT_KEYS.map((k) => (k.writesAt ? k.writesAt(eventsIn) : (s * k.writesPerSend) / k.shards)),
      },
      reads: { suppressionTable: consumerOut * UNITS.consumerRead },
    };
  };
  return { secondsPerMessage, serviceRate, syncPace, syncPerRequest, at };
}
