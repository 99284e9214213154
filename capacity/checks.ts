/**
 * The limits the capacity model checks, each as a function of the send rate, so it can say both what
 * the profile's peak uses and the send rate at which each limit binds. `aws`: a quota (past it AWS
 * throttles or refuses); `design`: a bound Ratchet sets on purpose (past it work waits on a queue);
 * `provider`: a provider's documented API rate.
 */
import { REPUTATION } from '../lib/definitions.js';
import { AWS_LIMITS, PROVIDER_RATE_LIMITS } from './limits.js';
import { EXTRA_HOT_KEYS, type Pipeline, type Rates } from './pipeline.js';
import type { TrafficProfile } from './profiles.js';
import type { CapacityFacts } from './template.js';

export interface Check {
  resource: string;
  limit: string;
  kind: 'aws' | 'design' | 'provider';
  /** What the profile's peak uses, and the limit, in `unit`. */
  atPeak: number;
  capacity: number;
  unit: string;
  /** The send rate (recipients per second) at which it binds; Infinity when no send rate reaches it. */
  bindsAtSendRate: number;
  source: string;
}

/** Highest send rate searched for a binding point: past it a limit counts as never binding. */
const SEARCH_CEILING = 1e7;

export function buildChecks(
  facts: CapacityFacts,
  pipe: Pipeline,
  profile: TrafficProfile,
  budget: number,
  shards: number,
  peakSendRate: number,
): Check[] {
  const checks: Check[] = [];
  const add = (c: Omit<Check, 'atPeak' | 'bindsAtSendRate'>, used: (r: Rates) => number) =>
    checks.push({
      ...c,
      atPeak: used(pipe.at(peakSendRate)),
      bindsAtSendRate: bindsAt((s) => used(pipe.at(s)), c.capacity),
    });
  const L = AWS_LIMITS;
  if (facts.feed)
    add(
      {
        resource: 'SES feed',
        limit: `feed service rate (MaximumConcurrency ${facts.feed.maxConcurrency})`,
        kind: 'design',
        capacity: pipe.serviceRate.feed,
        unit: 'envelopes/s',
        source: 'template',
      },
      (r) => r.feedIn,
    );
  add(
    {
      resource: 'events queue',
      limit: `consumer service rate (MaximumConcurrency ${facts.consumer.maxConcurrency})`,
      kind: 'design',
      capacity: pipe.serviceRate.consumer,
      unit: 'events/s',
      source: 'template',
    },
    (r) => r.eventsIn,
  );
  const reserved = facts.front.edgeReservedConcurrency;
  if (profile.feedShare < 1 && reserved !== undefined)
    add(
      {
        resource: 'front door',
        limit: `edge reserved concurrency (${reserved})`,
        kind: 'design',
        capacity: reserved,
        unit: 'concurrent executions',
        source: 'template',
      },
      (r) => r.frontRequests * pipe.secondsPerMessage.edgePerRequest,
    );
  if (profile.feedShare < 1 && facts.front.kind === 'api-gateway') {
    add(
      {
        resource: 'front door',
        limit: 'POST /webhooks/{provider} throttle',
        kind: 'design',
        capacity: facts.front.webhookRateLimit ?? Infinity,
        unit: 'requests/s',
        source: 'template',
      },
      (r) => r.frontRequests,
    );
    add(
      {
        resource: 'front door',
        limit: 'API Gateway account quota',
        kind: 'aws',
        capacity: L.apiGatewayAccountRps.value,
        unit: 'requests/s',
        source: L.apiGatewayAccountRps.source,
      },
      (r) => r.frontRequests,
    );
  }
  if (facts.feed)
    add(
      {
        resource: 'SES topic',
        limit: 'SNS publish quota (us-east-1)',
        kind: 'aws',
        capacity: L.snsPublishPerSecond.value,
        unit: 'messages/s',
        source: L.snsPublishPerSecond.source,
      },
      (r) => r.feedIn,
    );
  const total = (r: Rates) =>
    r.concurrency.edge +
    r.concurrency.feed +
    r.concurrency.consumer +
    r.concurrency.syncWorker +
    r.concurrency.reputationCounter;
  add(
    {
      resource: 'Lambda',
      limit: 'concurrencyBudget',
      kind: 'design',
      capacity: budget,
      unit: 'concurrent executions',
      source: 'concurrencyBudget',
    },
    total,
  );
  add(
    {
      resource: 'Lambda',
      limit: 'account concurrency',
      kind: 'aws',
      capacity: L.lambdaAccountConcurrency.value,
      unit: 'concurrent executions',
      source: L.lambdaAccountConcurrency.source,
    },
    total,
  );
  for (const [name, key] of [
    ['SES feed queue', 'feed'],
    ['events queue', 'events'],
    ['sync queue', 'sync'],
  ] as const)
    add(
      {
        resource: name,
        limit: 'SQS in-flight messages',
        kind: 'aws',
        capacity: L.sqsInFlight.value,
        unit: 'messages',
        source: L.sqsInFlight.source,
      },
      (r) => r.inFlight[key],
    );
  add(
    {
      resource: `table ${facts.tables.inbox.name}`,
      limit: 'new on-demand table writes',
      kind: 'aws',
      capacity: L.dynamoOnDemandNewTableWrites.value,
      unit: 'write units/s',
      source: L.dynamoOnDemandNewTableWrites.source,
    },
    (r) => r.writes.inboxTable,
  );
  add(
    {
      resource: `table ${facts.tables.suppression.name}`,
      limit: 'new on-demand table writes',
      kind: 'aws',
      capacity: L.dynamoOnDemandNewTableWrites.value,
      unit: 'write units/s',
      source: L.dynamoOnDemandNewTableWrites.source,
    },
    (r) => r.writes.suppressionTable,
  );
  const index = facts.tables.suppression.indexes[0];
  if (facts.syncWorker && index)
    add(
      {
        resource: `index ${index.name}`,
        limit: `partition writes (${shards} shard${shards === 1 ? '' : 's'} of ${index.partitionKey})`,
        kind: 'aws',
        capacity: L.dynamoPartitionWrites.value,
        unit: 'write units/s',
        source: L.dynamoPartitionWrites.source,
      },
      (r) => r.writes.syncIndexHottest,
    );
  add(
    {
      resource: 'reputation counter',
      limit: `busy copies (reserved concurrency ${REPUTATION.counting.reservedConcurrency}; one per stream shard at most)`,
      kind: 'design',
      capacity: REPUTATION.counting.reservedConcurrency,
      unit: 'concurrent executions',
      source: 'REPUTATION.counting.reservedConcurrency',
    },
    (r) => r.concurrency.reputationCounter,
  );
  for (const [i, k] of EXTRA_HOT_KEYS.entries())
    add(
      {
        resource: `table ${k.table}`,
        limit: `partition writes (${k.key})`,
        kind: 'aws',
        capacity: L.dynamoPartitionWrites.value,
        unit: 'write units/s',
        source: L.dynamoPartitionWrites.source,
      },
      (r) => r.writes.extra[i]!,
    );
  for (const p of profile.syncProviders) {
    if (!facts.syncWorker) break;
    add(
      {
        resource: `sync → ${p}`,
        limit: 'worker service rate (its pace × changes a request, or its share of the copies)',
        kind: 'design',
        capacity: pipe.serviceRate.sync[p]!,
        unit: 'changes/s',
        source: `the worker's SYNC_<PROVIDER>_RATE (context syncRates ÷ copies, else SYNC_DEFAULT_LIMITS) × MaximumConcurrency, × ${pipe.syncPerRequest[p]} changes a request (sync-batcher.ts: the provider's cap, or its share of a receive batch)`,
      },
      (r) => r.syncIn[p]!,
    );
    const documented = PROVIDER_RATE_LIMITS[p].perSecond;
    if (documented !== undefined)
      add(
        {
          resource: `sync → ${p}`,
          limit: `documented API rate (${documented} requests/s × ${pipe.syncPerRequest[p]} changes a request)`,
          kind: 'provider',
          // Past the provider's rate its answers (429) make calls wait, and waiting calls carry batches:
          // the most its rate lets through is that many requests, each with what waits for it.
          capacity: documented * pipe.syncPerRequest[p]!,
          unit: 'changes/s',
          source: PROVIDER_RATE_LIMITS[p].source,
        },
        (r) => r.syncIn[p]!,
      );
  }
  return checks;
}

/** The least send rate at which `used` reaches `capacity` (bisection: `used` only grows with the rate). */
export function bindsAt(used: (s: number) => number, capacity: number): number {
  if (used(SEARCH_CEILING) < capacity) return Number.POSITIVE_INFINITY;
  let lo = 0;
  let hi = SEARCH_CEILING;
  for (let i = 0; i < 200 && hi - lo > 1e-9 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (used(mid) >= capacity) hi = mid;
    else lo = mid;
  }
  return hi;
}
