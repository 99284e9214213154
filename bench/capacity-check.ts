/**
 * §14 Capacity model against a run: a scaled-down `campaign` replayed on the local stack, and the
 * capacity model's prediction for the same arrivals, service times and concurrency, side by side.
 *
 * 1. Calibration (untimed for the verdict): the local service rates the model then uses as its
 *    durations. Consumer: a backlog of events drained by the consumer poller alone. Feed: a backlog of
 *    signed envelopes drained by the feed poller with the consumer running too, as in the replay (one
 *    Node thread runs both, so each slows the other).
 * 2. Replay: envelopes in the campaign's mix (deliveries, 2 % bounces, 0.05 % complaints) put on the
 *    feed queue at `OVERLOAD` times the feed's calibrated rate, as SNS would, with both pollers running
 *    at the model's concurrency; the feed's waiting messages sampled every 100 ms until it is empty.
 * 3. The model (capacity/model.ts, the code behind `npm run capacity`) on the same arrivals: predicted
 *    peak backlog and drain time, each within 30 % of the measured, and a plot of both curves.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { runCapacityModel } from '../capacity/model.js';
import type { Durations } from '../capacity/pipeline.js';
import { eventsPerRecipient, PROFILES, type TrafficProfile } from '../capacity/profiles.js';
import type { CapacityFacts, SourceFacts } from '../capacity/template.js';
import type { ActionableKind } from '../lambdas/core/event.js';
import { chunk } from '../lambdas/core/pipeline/concurrency.js';
import { API, CONSUMER, SES_FEED } from '../lib/definitions.js';
import { sesDemo } from '../lib/demo/ses.js';
import { SILENT_LOG, startLocalStack } from '../test/support/local-stack.js';
import { onCleanup } from './lib/cleanup.js';
import type { BenchStack } from './lib/local-stack.js';
import { fmt, fmtRatio, sleep } from './lib/stats.js';
import { linePlot } from './lib/svg-plot.js';
import type { SectionResult } from './lib/types.js';

/** The least MaximumConcurrency an SQS event source takes: the feed's loops, here and in the model. */
const FEED_LOOPS = 2;
const CONSUMER_LOOPS = CONSUMER.maxConcurrency;
const CALIBRATION = Number(process.env.BENCH_CAPACITY_CALIBRATION ?? 1000);
const REPLAY = Number(process.env.BENCH_CAPACITY_REPLAY ?? 3000);
/** Arrivals over the feed's service rate in the replay: a campaign faster than the feed, scaled down. */
const OVERLOAD = 2.5;
const TOLERANCE = 0.3;
const SAMPLE_MS = 100;
const TIMEOUT_MS = 300_000;
export const PLOT_FILE = resolve(import.meta.dirname, '..', 'docs', 'capacity-backlog.svg');

export async function benchCapacityCheck(options: { log?: (line: string) => void } = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const stack = await startLocalStack({
    background: false,
    log: SILENT_LOG,
    tempDirPrefix: 'ratchet-bench-capacity-',
    onCleanup,
    sesFeedConcurrency: FEED_LOOPS,
    pollerConcurrency: CONSUMER_LOOPS,
  });
  try {
    const campaign = PROFILES.campaign;
    const sign = mixSigner(stack, campaign);
    // Warm-up (JIT, the pinned certificate, connections): both pollers through a few hundred.
    await fill(stack, sign(200));
    await drain(stack, { feed: true, consumer: true });

    // Consumer alone on a backlog the feed made, then the feed with the consumer running.
    await fill(stack, sign(CALIBRATION));
    await drain(stack, { feed: true, consumer: false });
    const consumerSeconds = (await drain(stack, { feed: false, consumer: true })).seconds;
    await fill(stack, sign(CALIBRATION));
    const feedSeconds = (await drain(stack, { feed: true, consumer: true })).seconds;
    const feedRate = CALIBRATION / feedSeconds;
    const consumerRate = CALIBRATION / consumerSeconds;
    log(
      `  calibrated: feed ${fmt(feedRate)} envelopes/s (${FEED_LOOPS} loops), consumer ${fmt(consumerRate)} events/s`,
    );

    // The replay, signed before the clock starts.
    const bodies = sign(REPLAY);
    const planned = OVERLOAD * feedRate;
    const replay = await runReplay(stack, bodies, planned);
    log(
      `  replay: ${REPLAY} envelopes offered at ${fmt(replay.offeredRate)}/s (planned ${fmt(planned)}/s) in ${fmt(replay.productionSeconds)} s`,
    );

    // The model on what was offered, with the calibrated durations and the same concurrency.
    const ev = eventsPerRecipient(campaign);
    const profile: TrafficProfile = {
      ...campaign,
      name: 'campaign (scaled down)',
      phases: [{ seconds: replay.productionSeconds, sendsPerSecond: replay.offeredRate / ev.total }],
      syncProviders: [],
    };
    const durations: Durations = {
      edgeSendgridBatchMs: 1,
      edgeSendgridBatch: 1,
      feedBatchMs: (1000 * FEED_LOOPS * SES_FEED.batchSize) / feedRate,
      feedBatch: SES_FEED.batchSize,
      consumerBatchMs: (1000 * CONSUMER_LOOPS * CONSUMER.batchSize) / consumerRate,
      consumerBatch: CONSUMER.batchSize,
      syncWorkerMsPerMessage: 1,
    };
    const report = runCapacityModel(localFacts(stack), durations, profile, {
      concurrencyBudget: 200,
      syncIndexShards: 1,
    });
    const predicted = report.queues[0]!;
    const measured = replay.feed;
    const peakRatio = measured.peak / predicted.peakBacklog;
    const drainRatio = measured.drainSeconds / predicted.drainSeconds;
    const within = (ratio: number) => Math.abs(ratio - 1) <= TOLERANCE;

    writeFileSync(
      PLOT_FILE,
      linePlot(
        [
          {
            label: 'SES feed, predicted by the capacity model',
            color: '#1f77b4',
            dashed: true,
            points: predicted.run.backlog,
          },
          {
            label: 'SES feed, measured (messages waiting)',
            color: '#d62728',
            points: replay.samples.map((s) => [s.t, s.feedVisible] as const),
          },
          {
            label: 'events queue, measured (waiting + in flight)',
            color: '#999999',
            points: replay.samples.map((s) => [s.t, s.events] as const),
          },
        ],
        {
          title: `Backlog against time: scaled-down campaign, ${REPLAY.toLocaleString('en-US')} envelopes on the local stack`,
          xLabel: 'seconds from the first envelope',
          yLabel: 'messages',
        },
      ),
    );

    const row = (what: string, p: number, m: number, ratio: number, unit: string) => [
      what,
      `${fmt(p)} ${unit}`,
      `${fmt(m)} ${unit}`,
      fmtRatio(ratio),
      `within ±${TOLERANCE * 100} %`,
      within(ratio) ? 'meets' : 'misses',
    ];
    return {
      id: 'capacity',
      title: '14. Capacity model against a run (local stack)',
      method: [
        `A scaled-down \`campaign\` (capacity/profiles.ts: deliveries on, 2 % bounces of which ${fmt(campaign.hardBounceShare * 100)} % hard, 0.05 % complaints, 0.1 % unsubscribes): ${REPLAY.toLocaleString('en-US')} signed SES envelopes in that mix (demo certificate, SNS SignatureVersion 2), put on the local SES feed queue with SendMessageBatch on a schedule, at ${OVERLOAD}× the feed's calibrated service rate, so a backlog forms as it would when a campaign outpaces the feed's MaximumConcurrency.`,
        `Concurrency as in the model: the feed poller runs ${FEED_LOOPS} receive loops (the least MaximumConcurrency an SQS event source takes) × batches of ${SES_FEED.batchSize}; the consumer poller ${CONSUMER_LOOPS} loops × ${CONSUMER.batchSize}. Everything runs in one Node process (pollers, handlers, dynalite, fauxqs, the producer; each emulator on a worker thread of its own).`,
        `Calibration, before the replay, gives the model its durations (the local service times, the honest comparison): the consumer alone drains ${CALIBRATION.toLocaleString('en-US')} events (${fmt(consumerRate)} events/s → ${fmt(durations.consumerBatchMs)} ms per batch-cycle of ${CONSUMER.batchSize} per loop); the feed drains ${CALIBRATION.toLocaleString('en-US')} envelopes with the consumer running, as in the replay (${fmt(feedRate)} envelopes/s → ${fmt(durations.feedBatchMs)} ms per batch-cycle of ${SES_FEED.batchSize} per loop: receive, handler, delete). One untimed warm-up of 200 first.`,
        `Measured: the feed's waiting messages (ApproximateNumberOfMessages) every ${SAMPLE_MS} ms from the first envelope; peak backlog = the largest sample; drain time = from that sample to the first empty one. Predicted: \`runCapacityModel\` (the code behind \`npm run capacity\`) on the arrivals actually offered (${fmt(replay.offeredRate)} envelopes/s for ${fmt(replay.productionSeconds)} s; planned ${fmt(planned)}/s).`,
      ],
      tables: [
        {
          columns: [
            'SES feed queue',
            'predicted (model)',
            'measured (run)',
            'measured ÷ predicted',
            'target',
            'verdict',
          ],
          rows: [
            row('peak backlog', predicted.peakBacklog, measured.peak, peakRatio, 'messages'),
            row('time to drain it', predicted.drainSeconds, measured.drainSeconds, drainRatio, 's'),
          ],
        },
        {
          columns: ['also measured', 'value'],
          rows: [
            ['feed service rate, calibrated (predicted service rate)', `${fmt(predicted.serviceRate)} envelopes/s`],
            ['feed peak reached at', `${fmt(measured.peakAt)} s (predicted ${fmt(predicted.run.peakAt)} s)`],
            [
              'events queue, largest depth (waiting + in flight)',
              `${fmt(Math.max(...replay.samples.map((s) => s.events)))} messages (predicted waiting: ${fmt(report.queues[1]!.peakBacklog)})`,
            ],
            ['envelopes dead-lettered', String(replay.deadLettered)],
          ],
        },
      ],
      verdicts: [
        {
          subject: 'Capacity model: measured ÷ predicted peak backlog, scaled campaign',
          target: `within ±${TOLERANCE * 100} %`,
          measured: fmtRatio(peakRatio),
          meets: within(peakRatio),
        },
        {
          subject: 'Capacity model: measured ÷ predicted drain time, scaled campaign',
          target: `within ±${TOLERANCE * 100} %`,
          measured: fmtRatio(drainRatio),
          meets: within(drainRatio),
        },
      ],
      notes: [
        `The plot (docs/capacity-backlog.svg, written by this section) shows both curves: ![Backlog against time, predicted and measured](docs/capacity-backlog.svg)`,
        'The events queue is drawn for context and not checked: its consumer was calibrated alone, and in the replay it shares the one Node thread with the feed and the producer, so it serves slower than calibrated; on AWS each function has its own instances.',
      ],
      wallMs: performance.now() - started,
    };
  } finally {
    await stack.stop();
  }
}

/** Signs envelopes in the profile's mix: deterministic, spread evenly through the sequence. */
function mixSigner(stack: BenchStack, profile: TrafficProfile): (count: number) => string[] {
  const ev = eventsPerRecipient(profile);
  const kinds: Array<[ActionableKind, number]> = [
    ['hard_bounce', ev.hard],
    ['soft_bounce', ev.soft],
    ['complaint', ev.complaint],
    ['unsubscribe', ev.unsubscribe],
    ['delivered', ev.delivered],
  ];
  let serial = 0;
  return (count) =>
    Array.from({ length: count }, () => {
      const i = serial++;
      // The golden-ratio sequence visits [0, 1) evenly: each kind gets its share, interleaved.
      let u = ((i * 0.6180339887498949) % 1) * ev.total;
      const kind = kinds.find(([, share]) => (u -= share) < 0)?.[0] ?? 'delivered';
      return sesDemo.sign(kind, `cap-${i}@bench.example.com`, stack.demo.ses!, Date.now()).body;
    });
}

function localFacts(stack: BenchStack): CapacityFacts {
  const source = (name: string, batchSize: number, loops: number): SourceFacts => ({
    functionDescription: name,
    batchSize,
    batchingWindowSeconds: 0,
    maxConcurrency: loops,
    concurrencyFrom: 'template',
    queueRetentionSeconds: SES_FEED.retentionDays * 86_400,
  });
  const table = (name: string, key: string) => ({ name, partitionKey: key, billing: 'PAY_PER_REQUEST', indexes: [] });
  return {
    context: {},
    front: { kind: 'api-gateway', webhookRateLimit: API.throttleRateLimit },
    possibleConcurrency: {
      total: FEED_LOOPS + CONSUMER_LOOPS,
      parts: [
        { part: 'local SES feed poller', concurrency: FEED_LOOPS, bound: 'event sources' },
        { part: 'local consumer poller', concurrency: CONSUMER_LOOPS, bound: 'event sources' },
      ],
    },
    feed: source('local SES feed poller', SES_FEED.batchSize, FEED_LOOPS),
    consumer: source('local consumer poller', CONSUMER.batchSize, CONSUMER_LOOPS),
    tables: { inbox: table(stack.config.inboxTable, 'pk'), suppression: table(stack.config.suppressionTable, 'email') },
  };
}

async function fill(stack: BenchStack, bodies: readonly string[]): Promise<void> {
  for (const batch of chunk(bodies, 10)) await sendBatch(stack, batch);
}

async function sendBatch(stack: BenchStack, batch: readonly string[]): Promise<void> {
  const sent = await stack.clients.sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: stack.queues.sesQueueUrl,
      Entries: batch.map((body, i) => ({ Id: String(i), MessageBody: body })),
    }),
  );
  if ((sent.Failed ?? []).length > 0) throw new Error('could not put envelopes on the feed queue');
}

async function depth(stack: BenchStack, url: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes = {} } = await stack.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
}

/** Runs the chosen pollers until both queues they read are empty; the seconds that took. */
async function drain(stack: BenchStack, which: { feed: boolean; consumer: boolean }): Promise<{ seconds: number }> {
  const t0 = performance.now();
  if (which.feed) stack.sesFeed.start();
  if (which.consumer) stack.poller.start();
  try {
    await until(async () => {
      const feed = which.feed ? await depth(stack, stack.queues.sesQueueUrl) : { visible: 0, inFlight: 0 };
      const events = which.consumer ? await depth(stack, stack.queues.queueUrl) : { visible: 0, inFlight: 0 };
      return feed.visible + feed.inFlight + events.visible + events.inFlight === 0;
    }, 20);
    return { seconds: (performance.now() - t0) / 1000 };
  } finally {
    await Promise.all([stack.sesFeed.stop(), stack.poller.stop()]);
  }
}

interface Sample {
  t: number;
  feedVisible: number;
  feedInFlight: number;
  events: number;
}

async function runReplay(stack: BenchStack, bodies: readonly string[], rate: number) {
  const samples: Sample[] = [];
  stack.sesFeed.start();
  stack.poller.start();
  const t0 = performance.now();
  const elapsed = () => (performance.now() - t0) / 1000;
  let productionSeconds = 0;
  const producer = (async () => {
    const batches = chunk(bodies, 10);
    for (let i = 0; i < batches.length; i++) {
      // Batch i leaves when the schedule says its last envelope is due.
      const due = ((i + 1) * 10) / rate;
      const wait = due - elapsed();
      if (wait > 0) await sleep(wait * 1000);
      await sendBatch(stack, batches[i]!);
    }
    productionSeconds = elapsed();
  })();
  try {
    let done = false;
    void producer.then(() => undefined);
    const deadline = performance.now() + TIMEOUT_MS;
    while (!done) {
      if (performance.now() > deadline) throw new Error(`the replay did not drain in ${TIMEOUT_MS / 1000} s`);
      const [feed, events] = await Promise.all([
        depth(stack, stack.queues.sesQueueUrl),
        depth(stack, stack.queues.queueUrl),
      ]);
      samples.push({
        t: elapsed(),
        feedVisible: feed.visible,
        feedInFlight: feed.inFlight,
        events: events.visible + events.inFlight,
      });
      done = productionSeconds > 0 && feed.visible + feed.inFlight + events.visible + events.inFlight === 0;
      if (!done) await sleep(SAMPLE_MS);
    }
    await producer;
  } finally {
    await Promise.all([stack.sesFeed.stop(), stack.poller.stop()]);
  }
  const peakSample = samples.reduce((best, s) => (s.feedVisible > best.feedVisible ? s : best), samples[0]!);
  const emptied = samples.find((s) => s.t > peakSample.t && s.feedVisible === 0) ?? samples.at(-1)!;
  const deadLettered = (await stack.feedDepth()).dlq;
  return {
    samples,
    productionSeconds,
    offeredRate: bodies.length / productionSeconds,
    deadLettered,
    feed: { peak: peakSample.feedVisible, peakAt: peakSample.t, drainSeconds: emptied.t - peakSample.t },
  };
}

async function until(check: () => Promise<boolean>, everyMs: number): Promise<void> {
  const deadline = performance.now() + TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (await check()) return;
    await sleep(everyMs);
  }
  throw new Error(`did not drain in ${TIMEOUT_MS / 1000} s`);
}
