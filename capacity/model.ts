/**
 * The capacity model: a traffic profile through the pipeline (pipeline.ts) over time (queueing.ts),
 * and every limit checked at the profile's peak. For each limit it also finds the send rate at which
 * it would bind, so the report can name the first limit a growing deployment meets, and at what rate.
 * Limits are of three kinds: `aws` (a quota: past it AWS throttles or refuses), `design` (a bound
 * Ratchet sets on purpose, such as MaximumConcurrency: past it work waits on a queue) and `provider`
 * (a provider's documented API rate).
 */

import { buildChecks, type Check } from './checks.js';
import { AWS_LIMITS, PROVIDER_RATE_LIMITS } from './limits.js';
import { buildPipeline, type Durations, EXTRA_HOT_KEYS, PROVIDER_ROW, type Rates } from './pipeline.js';
import { eventsPerRecipient, type TrafficProfile } from './profiles.js';
import { merge, type QueueRun, runQueue, type Segment, scale } from './queueing.js';
import type { CapacityFacts } from './template.js';

export interface QueueReport {
  resource: string;
  peakArrival: number;
  serviceRate: number;
  peakBacklog: number;
  drainSeconds: number;
  /** The longest a message waits (the last one in at the peak): peak backlog over service rate. */
  longestWaitSeconds: number;
  retentionSeconds?: number;
  concurrencyAtPeak: number;
  maxConcurrency: number;
  concurrencyFrom: 'template' | 'definitions' | 'none';
  inFlightAtPeak: number;
  run: QueueRun;
}

export interface PartitionReport {
  table: string;
  key: string;
  writesPerSecond: number;
  readsPerSecond: number;
  note: string;
}

export interface CapacityReport {
  profile: TrafficProfile;
  peakSendRate: number;
  recipients: number;
  budget: number;
  shards: number;
  queues: QueueReport[];
  front: { kind: string; requestsAtPeak: number; limit: number; edgeConcurrencyAtPeak: number };
  concurrency: {
    atPeak: number;
    possible: number;
    /** Each function's bound, as the budget check reads the template. */
    possibleParts: string;
    budget: number;
    account: number;
    parts: Record<string, number>;
    /** The inbox stream's shards at the peak: the reputation counter reads each with one copy at most. */
    streamShards: number;
  };
  partitions: PartitionReport[];
  providers: Array<{
    provider: string;
    /** Changes a second at the peak. */
    needed: number;
    /** Requests a second the worker allows. */
    pace: number;
    /** Changes one request carries once the pace binds. */
    perRequest: number;
    documented?: number;
    note: string;
  }>;
  checks: Check[];
  firstBinding?: Check;
  firstAwsBinding?: Check;
  notes: string[];
}

export function runCapacityModel(
  facts: CapacityFacts,
  durations: Durations,
  profile: TrafficProfile,
  defaults: { concurrencyBudget: number; syncIndexShards: number },
): CapacityReport {
  const budget = profile.concurrencyBudget ?? defaults.concurrencyBudget;
  const shards = profile.syncIndexShards ?? defaults.syncIndexShards;
  const pipe = buildPipeline(facts, durations, profile, { syncIndexShards: shards });
  const ev = eventsPerRecipient(profile);
  const peakSendRate = Math.max(...profile.phases.map((p) => p.sendsPerSecond));
  const recipients = profile.phases.reduce((n, p) => n + p.seconds * p.sendsPerSecond, 0);
  const peak = pipe.at(peakSendRate);
  const sends: Segment[] = profile.phases.map((p) => ({ seconds: p.seconds, rate: p.sendsPerSecond }));

  const queues: QueueReport[] = [];
  const queue = (
    resource: string,
    arrivals: Segment[],
    rate: number,
    source:
      | { maxConcurrency: number; concurrencyFrom: 'template' | 'definitions'; queueRetentionSeconds: number }
      | undefined,
    concurrencyAtPeak: number,
    inFlightAtPeak: number,
  ): QueueRun => {
    const run = runQueue(arrivals, rate);
    queues.push({
      resource,
      peakArrival: run.peakArrival,
      serviceRate: rate,
      peakBacklog: run.peakBacklog,
      drainSeconds: run.drainSeconds,
      longestWaitSeconds: run.peakBacklog / rate,
      ...(source ? { retentionSeconds: source.queueRetentionSeconds } : {}),
      concurrencyAtPeak,
      maxConcurrency: source?.maxConcurrency ?? 0,
      concurrencyFrom: source?.concurrencyFrom ?? 'none',
      inFlightAtPeak,
      run,
    });
    return run;
  };
  const feedRun = facts.feed
    ? queue(
        'SES feed queue → feed function',
        scale(sends, ev.total * profile.feedShare),
        pipe.serviceRate.feed,
        facts.feed,
        peak.concurrency.feed,
        peak.inFlight.feed,
      )
    : undefined;
  // The front door answers at once: what it admits goes straight onto the events queue.
  const frontAdmitted = sends.map((s) => ({ seconds: s.seconds, rate: pipe.at(s.rate).frontAdmittedEvents }));
  const eventsRun = queue(
    'events queue → consumer',
    merge(feedRun?.output ?? [], frontAdmitted),
    pipe.serviceRate.consumer,
    facts.consumer,
    peak.concurrency.consumer,
    peak.inFlight.events,
  );
  const changes = ev.total > 0 ? scale(eventsRun.output, ev.syncChanges / ev.total) : [];
  for (const p of profile.syncProviders) {
    if (!facts.syncWorker) break;
    queue(
      `sync queue → worker → ${p}`,
      changes,
      pipe.serviceRate.sync[p]!,
      facts.syncWorker,
      peak.concurrency.syncWorker,
      peak.inFlight.sync,
    );
  }

  const checks = buildChecks(facts, pipe, profile, budget, shards, peakSendRate);
  const parts = {
    edge: peak.concurrency.edge,
    feed: peak.concurrency.feed,
    consumer: peak.concurrency.consumer,
    syncWorker: peak.concurrency.syncWorker,
    reputationCounter: peak.concurrency.reputationCounter,
  };
  // Every function's bound as the synth-time budget check counts it (reserved concurrency, or the
  // sum of its event sources' MaximumConcurrency).
  const possible = facts.possibleConcurrency.total;
  const binding = checks
    .filter((c) => Number.isFinite(c.bindsAtSendRate))
    .sort((a, b) => a.bindsAtSendRate - b.bindsAtSendRate);
  return {
    profile,
    peakSendRate,
    recipients,
    budget,
    shards,
    queues,
    front: {
      kind: facts.front.kind,
      requestsAtPeak: peak.frontRequests,
      limit:
        facts.front.kind === 'api-gateway'
          ? (facts.front.webhookRateLimit ?? Infinity)
          : (facts.front.edgeReservedConcurrency ?? Infinity),
      edgeConcurrencyAtPeak: peak.concurrency.edge,
    },
    concurrency: {
      atPeak: Object.values(parts).reduce((n, x) => n + x, 0),
      possible,
      possibleParts: facts.possibleConcurrency.parts.map((p) => `${p.part} ${p.concurrency ?? 'unbounded'}`).join(', '),
      budget,
      account: AWS_LIMITS.lambdaAccountConcurrency.value,
      parts,
      streamShards: peak.streamShards,
    },
    partitions: partitions(facts, peak, profile, shards),
    providers: profile.syncProviders.map((p) => ({
      provider: p,
      needed: peak.syncChanges,
      pace: pipe.syncPace[p]!,
      perRequest: pipe.syncPerRequest[p]!,
      ...(PROVIDER_RATE_LIMITS[p].perSecond !== undefined ? { documented: PROVIDER_RATE_LIMITS[p].perSecond } : {}),
      note: PROVIDER_RATE_LIMITS[p].note,
    })),
    checks,
    ...(binding[0] ? { firstBinding: binding[0] } : {}),
    ...(binding.find((c) => c.kind === 'aws') ? { firstAwsBinding: binding.find((c) => c.kind === 'aws') } : {}),
    notes: notesFor(facts, queues),
  };
}

function partitions(facts: CapacityFacts, peak: Rates, profile: TrafficProfile, shards: number): PartitionReport[] {
  const { inbox, suppression } = facts.tables;
  const out: PartitionReport[] = [
    {
      table: inbox.name,
      key: `${inbox.partitionKey} = <provider>#<event id>`,
      writesPerSecond: 1,
      readsPerSecond: 0,
      note: 'one conditional put per event, a key per event: a duplicate delivery is one more write to the same key',
    },
  ];
  const copies = facts.syncWorker?.maxConcurrency ?? 0;
  if (facts.syncWorker && profile.syncProviders.length > 0)
    out.push({
      table: inbox.name,
      key: `${inbox.partitionKey} = sync#<provider>`,
      writesPerSecond: copies * PROVIDER_ROW.writesPerSecondPerCopy,
      readsPerSecond: copies * PROVIDER_ROW.readsPerSecondPerCopy,
      note: 'the shared 429 pause and last success, per provider: bounded by worker copies, not by traffic',
    });
  out.push({
    table: suppression.name,
    key: `${suppression.partitionKey} = <address>`,
    writesPerSecond: 1 + 2 * profile.syncProviders.length,
    readsPerSecond: 1 + profile.syncProviders.length,
    note: "one address: the consumer's write and each provider's push of one change, if they all land in the same second",
  });
  const index = suppression.indexes[0];
  if (facts.syncWorker && index)
    out.push({
      table: `${suppression.name} / ${index.name}`,
      key: `${index.partitionKey} (${shards} shard${shards === 1 ? '' : 's'})`,
      writesPerSecond: peak.writes.syncIndexHottest,
      readsPerSecond: 0,
      note: "the marker per change and the entry rewritten by each provider's push, over the shards",
    });
  for (const [i, k] of EXTRA_HOT_KEYS.entries())
    out.push({
      table: k.table,
      key: k.key,
      writesPerSecond: peak.writes.extra[i]!,
      readsPerSecond: 0,
      note: k.note ?? 'added by another feature (EXTRA_HOT_KEYS)',
    });
  return out;
}

function notesFor(facts: CapacityFacts, queues: QueueReport[]): string[] {
  const notes: string[] = [];
  for (const s of [facts.feed, facts.consumer, facts.syncWorker])
    if (s?.concurrencyFrom === 'definitions')
      notes.push(
        `The template gives "${s.functionDescription.split(':')[0]}" no MaximumConcurrency: the model uses lib/definitions.ts's ${s.maxConcurrency}, but on AWS that event source could scale to ${AWS_LIMITS.sqsMaximumConcurrency.value} concurrent batches (${AWS_LIMITS.sqsPollerScalingPerMinute.value} more a minute) and take the account's unreserved concurrency.`,
      );
  const slowest = Math.max(...[facts.feed, facts.consumer, facts.syncWorker].map((s) => s?.maxConcurrency ?? 0));
  const { sqsPollerStart: start, sqsPollerScalingPerMinute: perMinute } = AWS_LIMITS;
  notes.push(
    `Lambda's SQS pollers start at ${start.value} concurrent batches and add up to ${perMinute.value} a minute, so the largest MaximumConcurrency here (${slowest}) is reached within ${Math.ceil((60 * Math.max(0, slowest - start.value)) / perMinute.value)} s of a backlog: the ramp does not bind.`,
  );
  for (const q of queues)
    if (q.retentionSeconds !== undefined && q.longestWaitSeconds > q.retentionSeconds)
      notes.push(
        `${q.resource}: the longest wait (${Math.round(q.longestWaitSeconds / 3600)} h) is past the queue's retention (${Math.round(q.retentionSeconds / 3600)} h): messages would expire.`,
      );
  return notes;
}
