import { describe, expect, it } from 'vitest';
import { bindsAt } from '../../../capacity/checks.js';
import { runCapacityModel } from '../../../capacity/model.js';
import type { Durations } from '../../../capacity/pipeline.js';
import type { TrafficProfile } from '../../../capacity/profiles.js';
import { toJson } from '../../../capacity/report.js';
import { readCapacityFacts } from '../../../capacity/template.js';

/** A template cut down to what the model reads: feed, consumer and sync worker with their mappings. */
function resources(options: { feedMax?: number; workerEnv?: Record<string, unknown> } = {}) {
  const fn = (description: string, variables?: Record<string, unknown>) => ({
    Type: 'AWS::Lambda::Function',
    Properties: { Description: description, ...(variables ? { Environment: { Variables: variables } } : {}) },
  });
  const mapping = (fnId: string, queueId: string, batch: number, max?: number) => ({
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: {
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: batch,
      ...(max === undefined ? {} : { ScalingConfig: { MaximumConcurrency: max } }),
    },
  });
  return {
    Feed: fn('Ratchet SES feed: verifies'),
    FeedMapping: mapping('Feed', 'FeedQueue', 10, options.feedMax),
    FeedQueue: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: 259_200 } },
    Consumer: fn('Ratchet consumer: applies'),
    ConsumerMapping: mapping('Consumer', 'EventsQueue', 10, 2),
    EventsQueue: { Type: 'AWS::SQS::Queue', Properties: {} },
    Worker: fn('Ratchet sync worker: pushes', options.workerEnv),
    WorkerMapping: mapping('Worker', 'SyncQueue', 10, 2),
    SyncQueue: { Type: 'AWS::SQS::Queue', Properties: {} },
    Stage: { Type: 'AWS::ApiGatewayV2::Stage', Properties: { DefaultRouteSettings: { ThrottlingRateLimit: 100 } } },
    Inbox: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { TableName: 'ratchet-inbox', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] },
    },
    Suppressions: {
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        TableName: 'ratchet-suppressions',
        KeySchema: [{ AttributeName: 'email', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'sync-due',
            KeySchema: [
              { AttributeName: 'syncPending', KeyType: 'HASH' },
              { AttributeName: 'syncDue', KeyType: 'RANGE' },
            ],
          },
        ],
      },
    },
  };
}

/** Per batch of 10: 100 ms (100 messages/s per copy) for the feed, 200 ms (50/s) for the consumer. */
const durations: Durations = {
  edgeSendgridBatchMs: 100,
  edgeSendgridBatch: 50,
  feedBatchMs: 100,
  feedBatch: 10,
  consumerBatchMs: 200,
  consumerBatch: 10,
  syncWorkerMsPerMessage: 10,
};

/** One event per recipient (deliveries only, nothing bounces): every rate equals the send rate. */
const profile: TrafficProfile = {
  name: 'test',
  description: 'test',
  phases: [{ seconds: 100, sendsPerSecond: 300 }],
  deliveryEvents: true,
  bounceRate: 0,
  hardBounceShare: 0,
  complaintRate: 0,
  unsubscribeRate: 0,
  feedShare: 1,
  webhookBatch: 1,
  syncProviders: [],
};
const defaults = { concurrencyBudget: 200, syncIndexShards: 1 };

describe('runCapacityModel on a known profile', () => {
  const facts = readCapacityFacts(resources({ feedMax: 2 }), {});
  const report = runCapacityModel(facts, durations, profile, defaults);
  const [feed, events] = report.queues;

  it('feed: 300/s against 2 × 10 ÷ 0.1 s = 200/s backs up 10,000 by 100 s and drains in 50 s', () => {
    expect(feed!.serviceRate).toBe(200);
    expect(feed!.peakArrival).toBe(300);
    expect(feed!.peakBacklog).toBeCloseTo(10_000, 6);
    expect(feed!.drainSeconds).toBeCloseTo(50, 6);
    expect(feed!.retentionSeconds).toBe(259_200);
    expect(feed!.concurrencyAtPeak).toBe(2);
    expect(feed!.inFlightAtPeak).toBe(20);
  });

  it('events: the consumer (2 × 10 ÷ 0.2 s = 100/s) sees the feed capped at 200/s: 15,000 by 150 s, drained 150 s later', () => {
    expect(events!.serviceRate).toBe(100);
    expect(events!.peakArrival).toBe(200);
    expect(events!.peakBacklog).toBeCloseTo(15_000, 6);
    expect(events!.drainSeconds).toBeCloseTo(150, 6);
  });

  it('names the consumer as the first limit, at 100 sends/s, and the feed at 200', () => {
    expect(report.firstBinding?.resource).toBe('events queue');
    expect(report.firstBinding?.bindsAtSendRate).toBeCloseTo(100, 3);
    const feedCheck = report.checks.find((c) => c.resource === 'SES feed');
    expect(feedCheck?.bindsAtSendRate).toBeCloseTo(200, 3);
  });

  it('counts concurrency at the peak and at most against the budget', () => {
    expect(report.concurrency.parts.feed).toBe(2);
    expect(report.concurrency.parts.consumer).toBe(2);
    // As the synth-time budget check counts them (lib/concurrency.ts): the three mappings' maxima.
    expect(report.concurrency.possible).toBe(2 + 2 + 2);
    expect(report.concurrency.possibleParts).toBe('Feed 2, Consumer 2, Worker 2');
  });
});

describe('--json form', () => {
  it('is plain JSON: no plot points, Infinity as null', () => {
    const report = runCapacityModel(readCapacityFacts(resources({ feedMax: 2 }), {}), durations, profile, defaults);
    const json = JSON.parse(JSON.stringify(toJson(report)));
    expect(json.firstBinding.resource).toBe('events queue');
    expect(json.queues[0]).not.toHaveProperty('run');
    expect(json.checks.find((c: { limit: string }) => c.limit === 'account concurrency').bindsAtSendRate).toBeNull();
  });
});

describe('the front door', () => {
  it("holds webhooks to the edge's reserved concurrency: 3 copies × 10 requests/s of 50 events binds at 1,500 sends/s", () => {
    const withEdge = {
      ...resources({ feedMax: 2 }),
      Edge: {
        Type: 'AWS::Lambda::Function',
        Properties: { Description: 'Ratchet edge: x', ReservedConcurrentExecutions: 3 },
      },
    };
    const facts = readCapacityFacts(withEdge, {});
    expect(facts.front).toEqual({ kind: 'api-gateway', webhookRateLimit: 100, edgeReservedConcurrency: 3 });
    const report = runCapacityModel(facts, durations, { ...profile, feedShare: 0, webhookBatch: 50 }, defaults);
    const edge = report.checks.find((c) => c.limit === 'edge reserved concurrency (3)')!;
    expect(edge.bindsAtSendRate).toBeCloseTo(1500, 3);
    expect(report.checks.find((c) => c.limit === 'POST /webhooks/{provider} throttle')!.bindsAtSendRate).toBeCloseTo(
      5000,
      3,
    );
  });
});

describe('limits the template leaves out', () => {
  it('falls back to lib/definitions.ts for a mapping without MaximumConcurrency, and says so', () => {
    const facts = readCapacityFacts(resources(), {});
    expect(facts.feed?.concurrencyFrom).toBe('definitions');
    const report = runCapacityModel(facts, durations, profile, defaults);
    expect(report.notes.join('\n')).toMatch(/"Ratchet SES feed" no MaximumConcurrency/);
  });
});

describe('sync and its index', () => {
  const facts = readCapacityFacts(resources({ feedMax: 2 }), {});
  // 1 % hard bounces at 10 sends/s: 0.1 changes/s, one call per provider per change.
  const syncing: TrafficProfile = {
    ...profile,
    phases: [{ seconds: 100, sendsPerSecond: 10 }],
    bounceRate: 0.01,
    hardBounceShare: 1,
    syncProviders: ['ses', 'resend'],
  };

  it('writes the marker and one entry per provider push on the hottest index shard', () => {
    const one = runCapacityModel(facts, durations, syncing, defaults);
    const index = one.partitions.find((p) => p.table.endsWith('sync-due'))!;
    expect(index.writesPerSecond).toBeCloseTo(0.1 * (1 + 2), 9);
    const four = runCapacityModel(facts, durations, syncing, { ...defaults, syncIndexShards: 4 });
    expect(four.partitions.find((p) => p.table.endsWith('sync-due'))!.writesPerSecond).toBeCloseTo((0.1 * 3) / 4, 9);
  });

  it('holds Resend to its documented 2 requests/s, each carrying its share of a receive batch', () => {
    // Feed and consumer fast enough (2,000/s) not to cap the changes below Resend's limit.
    const fast = { ...durations, feedBatchMs: 10, consumerBatchMs: 10 };
    const report = runCapacityModel(facts, fast, syncing, defaults);
    const resend = report.checks.find((c) => c.resource === 'sync → resend' && c.kind === 'provider')!;
    const perRequest = report.providers.find((p) => p.provider === 'resend')!.perRequest;
    // Ten messages a receive batch over the profile's providers, at least one each.
    expect(perRequest).toBe(Math.max(1, Math.floor(10 / syncing.syncProviders.length)));
    expect(resend.capacity).toBe(2 * perRequest);
    // With 1 % of sends a change: binds at 100 × that.
    expect(resend.bindsAtSendRate).toBeCloseTo(100 * 2 * perRequest, 3);
    expect(report.providers.find((p) => p.provider === 'resend')?.documented).toBe(2);
    expect(report.providers.find((p) => p.provider === 'ses')?.documented).toBeUndefined();
  });
});

describe("the worker's rates as the template sets them (context syncRates)", () => {
  const syncing: TrafficProfile = { ...profile, syncProviders: ['ses', 'sendgrid'] };
  // 2 copies × 1 message per 10 ms: 200 messages/s, 100 for each of two providers.
  const pace = (workerEnv?: Record<string, unknown>) => {
    const facts = readCapacityFacts(resources({ feedMax: 2, workerEnv }), {});
    const report = runCapacityModel(facts, durations, syncing, defaults);
    const check = (p: string) => report.checks.find((c) => c.resource === `sync → ${p}` && c.kind === 'design')!;
    return {
      ses: report.providers.find((p) => p.provider === 'ses')!.pace,
      sesCapacity: check('ses').capacity,
      sendgridCapacity: check('sendgrid').capacity,
    };
  };

  it('a rate the stack sets is the pace per copy, times the copies', () => {
    // SYNC_SES_RATE=25 is syncRates ses=50 over the 2 copies; a token beside it is not a setting.
    const set = pace({ SYNC_SES_RATE: '25', SYNC_QUEUE_URL: { Ref: 'SyncQueue' } });
    expect(set.ses).toBe(50);
    // SES takes one address a request: its pace is its changes a second.
    expect(set.sesCapacity).toBe(50);
    // SendGrid unset: its default, 10 requests a second per copy, 20 in all; once that binds, each request
    // carries its share of a receive batch (10 messages over 2 providers: 5), capped by its share of the copies (100).
    expect(set.sendgridCapacity).toBe(Math.min(20 * 5, 100));
  });

  it('without it, the default per copy', () => {
    expect(pace()).toEqual({ ses: 10, sesCapacity: 10, sendgridCapacity: 100 });
  });

  it('a worker rate beyond what its share of the copies serves is capped by that share', () => {
    expect(pace({ SYNC_SES_RATE: '500' }).sesCapacity).toBe(100);
  });
});

describe('bindsAt', () => {
  it('finds where a growing load reaches the limit, and Infinity where it never does', () => {
    expect(bindsAt((s) => 3 * s, 1500)).toBeCloseTo(500, 3);
    expect(bindsAt((s) => Math.min(10, s), 20)).toBe(Number.POSITIVE_INFINITY);
  });
});
