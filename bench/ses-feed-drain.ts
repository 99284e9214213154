/**
 * §10 SES feed drain rate: a backlog of signed SNS envelopes on the local SES feed queue (as SNS puts
 * them, raw message delivery off), drained by the runtime's own feed poller (the event source's
 * stand-in: SES_FEED.maxConcurrency receive loops, batches of SES_FEED.batchSize) through the real feed
 * handler: verify each envelope (signature, certificate, topic), one SendMessageBatch for the batch's
 * events, one conditional put per envelope, one DeleteMessageBatch. Against a bare loop on the same
 * emulators, with the same number of loops: receive 10, 10 conditional puts, one SendMessageBatch, one
 * DeleteMessageBatch, with no verification, parsing or encoding. Runs alternate feed, bare, feed, bare,
 * …; the verdict is the median of the per-pair ratios. Target: at least 0.6× the bare rate. The
 * consumer and the reputation counter (functions of their own on AWS) do not run while a side is timed.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { chunk } from '../lambdas/core/pipeline/concurrency.js';
import { INBOX_TABLE, SES_FEED } from '../lib/definitions.js';
import { sesDemo } from '../lib/demo/ses.js';
import { type BenchStack, withBenchStack } from './lib/local-stack.js';
import { fmt, fmtRatio, median, pairedRatio, sleep } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const MESSAGES = Number(process.env.BENCH_SES_FEED_MESSAGES ?? 2000);
const RUNS = Number(process.env.BENCH_SES_FEED_RUNS ?? 5);
const TARGET_RATIO = 0.6;
const DRAIN_TIMEOUT_MS = 180_000;
const BARE_QUEUE = 'bench-bare-ses-feed';

interface Run {
  ms: number;
  cpuMs: number;
}

export async function benchSesFeedDrain(options: { log?: (line: string) => void } = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  return withBenchStack(async (stack) => {
    const bareUrl = (await stack.clients.sqs.send(new CreateQueueCommand({ QueueName: BARE_QUEUE }))).QueueUrl!;
    const feed: Run[] = [];
    const bare: Run[] = [];
    let sample = '';
    // One untimed warm-up of each side (JIT, the pinned certificate, connections), the same size.
    for (const [url, drain] of [
      [stack.queues.sesQueueUrl, drainFeed],
      [bareUrl, (s: BenchStack, stop: () => void) => drainBare(s, bareUrl, stop)],
    ] as const) {
      await fill(stack, url, sign(stack, -1));
      await timed((stop) => drain(stack, stop));
      await stack.reputation.flush();
    }
    await stack.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queues.queueUrl }));
    log('  warm-up done (untimed)');
    for (let round = 0; round < RUNS; round++) {
      // Fresh envelopes each round (new MessageIds, so new inbox rows), signed untimed.
      const bodies = sign(stack, round);
      sample ||= bodies[0]!;
      await fill(stack, stack.queues.sesQueueUrl, bodies);
      feed.push(await timed((stop) => drainFeed(stack, stop)));
      // What the inbox stored is counted now, untimed: on AWS the counter is a function of its own, fed
      // by the inbox table's stream, and its work is no more the feed's than the consumer's is.
      await stack.reputation.flush();
      await fill(stack, bareUrl, bodies);
      bare.push(await timed((stop) => drainBare(stack, bareUrl, stop)));
      // The events both sides sent pile up in the events queue (the consumer is off): empty it between rounds.
      await stack.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queues.queueUrl }));
      log(
        `  round ${round + 1}: feed ${fmt(MESSAGES / (feed[round]!.ms / 1000))} msg/s, bare ${fmt(MESSAGES / (bare[round]!.ms / 1000))} msg/s`,
      );
    }
    const depth = await stack.feedDepth();
    if (depth.dlq !== 0)
      throw new Error(`${depth.dlq} envelopes were dead-lettered: the feed refused authentic messages`);

    const rate = (runs: Run[]) => median(runs.map((r) => MESSAGES / (r.ms / 1000)));
    const ratio = pairedRatio(
      feed.map((r) => MESSAGES / r.ms),
      bare.map((r) => MESSAGES / r.ms),
    );
    const cpu = (runs: Run[]) => median(runs.map((r) => r.cpuMs / MESSAGES));
    return {
      id: 'ses-feed',
      title: '10. SES feed drain rate (local stack)',
      method: [
        `${MESSAGES.toLocaleString('en-US')} SNS Notification envelopes (SES Delivery, one recipient each, SignatureVersion 2 with the demo certificate, ~${fmt(Buffer.byteLength(sample) / 1024)} KB) put on the feed queue with SendMessageBatch before each timed run (untimed), fresh ones each round.`,
        `**feed**: the runtime's SES feed poller (\`QueuePoller\` with the feed handler, ${SES_FEED.maxConcurrency} receive loops × batches of ${SES_FEED.batchSize}, as SES_FEED sizes the event source): per batch, \`WebhookEdge.receiveBatch\` verifies every envelope (signature against the pinned certificate, certificate URL gate, topic allowlist, freshness), maps it to events and encodes its inbox row, sends all the batch's events with one SendMessageBatch, then runs the conditional puts; the poller then deletes the batch with one DeleteMessageBatch. Timed from \`start()\` until every envelope is counted admitted and the feed shows nothing visible or in flight (checked every 20 ms).`,
        `**bare**: the same messages on a second queue, ${SES_FEED.maxConcurrency} loops of: ReceiveMessage (10, 1 s long poll, as the poller) → 10 conditional PutItem (\`attribute_not_exists(pk)\`, the body as the item) → one SendMessageBatch of 10 to the events queue → one DeleteMessageBatch; timed the same way.`,
        `One untimed warm-up round of each side, then ${RUNS} rounds, feed then bare in each; the ratio is the median of the per-round ratios. **CPU ms/message** is the whole process (poller, handler, dynalite and fauxqs share it) per message. The consumer and the reputation counter are off while a side is timed, as on AWS each is a function of its own (fed by the events queue and by the inbox table's stream): the events queue is purged between rounds, and the rows the feed stored are counted after each feed run, untimed.`,
      ],
      tables: [
        {
          columns: [
            'side',
            'messages',
            'loops × batch',
            'drain s (median)',
            'messages/s (median)',
            'CPU ms/message',
            'runs (s)',
          ],
          rows: [
            [
              'feed',
              String(MESSAGES),
              `${SES_FEED.maxConcurrency} × ${SES_FEED.batchSize}`,
              fmt(median(feed.map((r) => r.ms)) / 1000),
              fmt(rate(feed)),
              fmt(cpu(feed)),
              feed.map((r) => fmt(r.ms / 1000)).join(', '),
            ],
            [
              'bare',
              String(MESSAGES),
              `${SES_FEED.maxConcurrency} × 10`,
              fmt(median(bare.map((r) => r.ms)) / 1000),
              fmt(rate(bare)),
              fmt(cpu(bare)),
              bare.map((r) => fmt(r.ms / 1000)).join(', '),
            ],
          ],
        },
      ],
      verdicts: [
        {
          subject: 'SES feed drain rate / bare receive + puts + send + delete loop',
          target: `≥ ${TARGET_RATIO}×`,
          measured: fmtRatio(ratio),
          meets: ratio >= TARGET_RATIO,
        },
      ],
      notes: [
        `Nothing was dead-lettered: all ${(MESSAGES * (RUNS + 1)).toLocaleString('en-US')} envelopes (warm-up included) were admitted.`,
      ],
      wallMs: performance.now() - started,
    };
  });
}

function sign(stack: BenchStack, round: number): string[] {
  const credentials = stack.demo.ses!;
  return Array.from(
    { length: MESSAGES },
    (_, i) =>
      sesDemo.sign('delivered', `feed-${round < 0 ? 'warm' : round}-${i}@bench.example.com`, credentials, Date.now())
        .body,
  );
}

async function fill(stack: BenchStack, queueUrl: string, bodies: readonly string[]): Promise<void> {
  for (const batch of chunk(bodies, 10)) {
    const sent = await stack.clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    if ((sent.Failed ?? []).length > 0) throw new Error('could not fill the queue');
  }
}

/** Times `run` until it calls `stop` (it may wind down afterwards, untimed). */
async function timed(run: (stop: () => void) => Promise<void>): Promise<Run> {
  const cpuStart = process.cpuUsage();
  const t0 = performance.now();
  let result: Run | undefined;
  await run(() => {
    const cpu = process.cpuUsage(cpuStart);
    result = { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
  });
  if (!result) throw new Error('the run never stopped the clock');
  return result;
}

async function drainFeed(stack: BenchStack, stopClock: () => void): Promise<void> {
  const admitted = () => stack.counters.totals.get('EventsAdmitted{provider=ses}') ?? 0;
  const target = admitted() + MESSAGES;
  stack.sesFeed.start();
  try {
    await until(async () => {
      if (admitted() < target) return false;
      const depth = await stack.feedDepth();
      return depth.visible === 0 && depth.inFlight === 0;
    });
    stopClock();
  } finally {
    // Untimed: the loops finish their 1 s long polls after the clock stopped.
    await stack.sesFeed.stop();
  }
}

async function drainBare(stack: BenchStack, queueUrl: string, stopClock: () => void): Promise<void> {
  const { sqs, doc } = stack.clients;
  let done = 0;
  let running = true;
  const loop = async () => {
    while (running) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      if (Messages.length === 0) continue;
      await Promise.all(
        Messages.map((m) =>
          doc.send(
            new PutCommand({
              TableName: stack.config.inboxTable,
              Item: { pk: `bare#${m.MessageId}`, body: m.Body },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': INBOX_TABLE.partitionKey },
            }),
          ),
        ),
      );
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: stack.queues.queueUrl,
          Entries: Messages.map((m, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify({ pk: `bare#${m.MessageId}`, event: m.Body!.slice(0, 400) }),
          })),
        }),
      );
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      done += Messages.length;
    }
  };
  const loops = Array.from({ length: SES_FEED.maxConcurrency }, loop);
  try {
    await until(async () => {
      if (done < MESSAGES) return false;
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return (
        Number(Attributes.ApproximateNumberOfMessages) === 0 &&
        Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0
      );
    });
    stopClock();
  } finally {
    running = false;
  }
  await Promise.all(loops);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`drain did not finish in ${DRAIN_TIMEOUT_MS / 1000} s`);
}
