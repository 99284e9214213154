/**
 * §5 Consumer drain rate: a backlog of 5,000 events (1,000 addresses × 5 events, mixed kinds) already
 * in the queue, then the local poller (the SQS event source stand-in, default concurrency and batch
 * size from lib/definitions.ts) is started and timed until every event is applied and the queue is
 * empty. The backlog is put in place directly, not through HTTP: events are produced by the generic
 * provider's own `receive` on demo-signed requests, enqueued with the edge's queue adapter
 * (`SqsEventQueue`) and stored with its inbox adapter (`DynamoInbox.prepare` + `store`, the same conditional put).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoInbox } from '../lambdas/adapters/dynamodb-inbox.js';
import { SqsEventQueue } from '../lambdas/adapters/sqs-queue.js';
import type { ActionableKind, NormalizedEvent } from '../lambdas/core/event.js';
import type { QueuedEvent } from '../lambdas/core/pipeline/ports.js';
import { findProvider } from '../lambdas/core/providers/index.js';
import { lowerCaseHeaders } from '../lambdas/core/request.js';
import { CONSUMER, DEFAULT_INBOX_TTL_DAYS } from '../lib/definitions.js';
import { genericDemo } from '../lib/demo/generic.js';
import { runClosedLoop } from './lib/load.js';
import { type BenchStack, withBenchStack } from './lib/local-stack.js';
import { fmt, sleep } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const ADDRESSES = 1000;
const EVENTS_PER_ADDRESS = 5;
const TOTAL = ADDRESSES * EVENTS_PER_ADDRESS;
const KINDS: readonly ActionableKind[] = ['delivered', 'soft_bounce', 'hard_bounce', 'complaint', 'unsubscribe'];
const DRAIN_TIMEOUT_MS = 180_000;

export interface ConsumerDrainOptions {
  log?: (line: string) => void;
}

export async function benchConsumerDrain(options: ConsumerDrainOptions = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  return withBenchStack(async (stack) => {
    const setupStart = performance.now();
    const events = await makeEvents(stack);
    await enqueueBacklog(stack, events);
    const before = await stack.queueDepth();
    if (before.visible !== TOTAL)
      throw new Error(`backlog: expected ${TOTAL} queued messages, found ${before.visible}`);
    log(
      `  backlog of ${TOTAL} events in place in ${fmt((performance.now() - setupStart) / 1000)} s (untimed); draining…`,
    );

    const applied = () =>
      [...stack.counters.totals.entries()]
        .filter(([key]) => key.startsWith('EventsApplied{'))
        .reduce((n, [, v]) => n + v, 0);
    const cpuStart = process.cpuUsage();
    const drainStart = performance.now();
    stack.poller.start();
    let drainMs: number | undefined;
    try {
      while (performance.now() - drainStart < DRAIN_TIMEOUT_MS) {
        if (applied() >= TOTAL) {
          const depth = await stack.queueDepth();
          if (depth.visible === 0 && depth.inFlight === 0) {
            drainMs = performance.now() - drainStart;
            break;
          }
        }
        await sleep(50);
      }
    } finally {
      // Untimed: stopping waits out the loops' 1 s long polls.
      await stack.poller.stop();
    }
    const cpu = process.cpuUsage(cpuStart);
    if (drainMs === undefined)
      throw new Error(`drain did not finish in ${DRAIN_TIMEOUT_MS / 1000} s: ${applied()} of ${TOTAL} applied`);

    const after = await stack.queueDepth();
    const rows = (await scanAll(stack, stack.config.inboxTable)).filter((row) => row.body !== undefined);
    const records = await scanAll(stack, stack.config.suppressionTable);
    const suppressed = records.filter((record) => record.status === 'suppressed').length;
    const rate = TOTAL / (drainMs / 1000);

    return {
      id: 'drain',
      title: '5. Consumer drain rate (local stack)',
      method: [
        `Backlog: ${ADDRESSES.toLocaleString('en-US')} addresses × ${EVENTS_PER_ADDRESS} events (each address gets one of each of ${KINDS.join(', ')}, in a per-address rotated order and with increasing timestamps), queued round-robin so an address's events are ${ADDRESSES} messages apart.`,
        "Put in place directly, not through HTTP (untimed): the generic provider's `receive` on demo-signed requests makes the NormalizedEvents, `SqsEventQueue.send` enqueues them (SendMessageBatch) and `DynamoInbox.store` writes the inbox rows (the edge's conditional put), in the edge's order. The consumer never touches the inbox.",
        `Then the runtime's \`QueuePoller\` starts with its defaults (${CONSUMER.maxConcurrency} receive loops = the event source's maximum concurrency, batches of ${CONSUMER.batchSize}): receive → consumer handler (suppression ratchet: consistent read + version-guarded put per event, skipped when nothing changes) → delete. Timed from \`start()\` until all ${TOTAL.toLocaleString('en-US')} events are counted applied and the queue shows nothing visible or in flight (checked every 50 ms).`,
        '**CPU ms/event** = whole-process CPU (poller, consumer, dynalite and fauxqs share one process) per event during the drain.',
      ],
      tables: [
        {
          columns: [
            'events',
            'addresses',
            'poller loops × batch',
            'drain s',
            'events/s',
            'CPU ms/event',
            'inbox rows',
            'addresses suppressed',
            'DLQ',
          ],
          rows: [
            [
              String(TOTAL),
              String(ADDRESSES),
              `${CONSUMER.maxConcurrency} × ${CONSUMER.batchSize}`,
              fmt(drainMs / 1000),
              fmt(rate),
              fmt((cpu.user + cpu.system) / 1000 / TOTAL),
              String(rows.length),
              `${suppressed} / ${records.length}`,
              String(after.dlq),
            ],
          ],
        },
      ],
      verdicts: [],
      notes: ['No target was set for the drain rate; it is reported for tracking.'],
      wallMs: performance.now() - started,
    };
  });
}

/** The generic provider's own receive turns demo-signed requests into NormalizedEvents, queue order round-robin by address. */
async function makeEvents(stack: BenchStack): Promise<NormalizedEvent[]> {
  const credentials = stack.demo.generic!;
  const provider = findProvider('generic')!.create({
    credentials: [credentials.credential],
    now: Date.now,
    nonces: { claim: async () => true },
    certificates: { get: async () => Promise.reject(new Error('unused')) },
    settings: {},
  });
  const base = Date.now() - EVENTS_PER_ADDRESS * 1000;
  const events: NormalizedEvent[] = [];
  for (let step = 0; step < EVENTS_PER_ADDRESS; step++) {
    for (let address = 0; address < ADDRESSES; address++) {
      const kind = KINDS[(address + step) % KINDS.length]!;
      const signed = genericDemo.sign(kind, `drain-${address}@bench.example.com`, credentials, base + step * 1000);
      const receipt = await provider.receive({
        body: Buffer.from(signed.body),
        headers: lowerCaseHeaders(signed.headers),
      });
      events.push(...receipt.events);
    }
  }
  return events;
}

async function enqueueBacklog(stack: BenchStack, events: readonly NormalizedEvent[]): Promise<void> {
  const { doc, sqs } = stack.clients;
  const inbox = new DynamoInbox(doc, stack.config.inboxTable, { ttlSeconds: DEFAULT_INBOX_TTL_DAYS * 86_400 });
  const rows = events.map((event) => inbox.prepare([event], Date.now()));
  // The edge's order: send first (queue order = event order), then store.
  const queued: QueuedEvent[] = events.map(({ raw: _raw, ...rest }, i) => ({ pk: rows[i]!.pk, event: rest }));
  await new SqsEventQueue(sqs, () => stack.queues.queueUrl).send(queued);
  const stored = await runClosedLoop(rows, 32, async (row) =>
    (await inbox.store(row)) ? true : `not stored: ${row.pk}`,
  );
  if (stored.failures > 0) throw new Error(`backlog store failed: ${stored.failureSamples.join('; ')}`);
}

async function scanAll(stack: BenchStack, table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stack.clients.doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
