/**
 * Reputation counting's quantities for the cost model (docs/reputation.md): the inbox stream's consumer,
 * measured on the local runtime (the same handler, fed stream records of the rows the measurement's
 * requests stored), and its line items per million events.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type StoredRow, storedRowAttributes } from '../lambdas/adapters/dynamodb-inbox.js';
import { itemSize, writeUnits } from '../lambdas/adapters/dynamodb-item-size.js';
import { admittedRecordOf } from '../lambdas/adapters/inbox-stream.js';
import { powertoolsLog } from '../lambdas/adapters/observability.js';
import { buildReputationCounter } from '../lambdas/adapters/wiring/reputation-counter.js';
import type { Clients, RuntimeConfig } from '../lambdas/adapters/wiring.js';
import { cellBatches } from '../lambdas/core/reputation/stream-count.js';
import { createReputationCounterHandler } from '../lambdas/handlers/reputation-counter-handler.js';
import { REPUTATION } from '../lib/definitions.js';
import { insertRecord } from '../lib/local/inbox-stream.js';
import { PRICES } from './prices.js';

const C = REPUTATION.counting;

export interface CountingMeasured {
  /** Median ms the counter takes for a batch of `counterBatch` records (decode, tally, the cells' writes on dynalite). */
  counterBatchMs: number;
  counterBatch: number;
  /** Cells (provider, sender, hour) one batch of the measured rows writes. */
  counterCellsPerBatch: number;
  counterLogBytes: number;
  /** The largest cell written, by DynamoDB's size rules. */
  counterItemBytes: number;
}

/** The counter handler on `runs` batches of the mapping's size, built from the inbox rows `items`, each batch a fresh shard. */
export async function measureCounting(
  runtime: { config: RuntimeConfig; clients: Clients },
  items: ReadonlyArray<Record<string, unknown>>,
  capture: { reset(): void; bytes(): number },
  scan: (table: string) => Promise<Array<Record<string, unknown>>>,
  runs = 5,
): Promise<CountingMeasured> {
  const handler = createReputationCounterHandler(
    buildReputationCounter(runtime.config, runtime.clients, {
      log: powertoolsLog('ratchet-reputation-counter', 'INFO'),
    }),
  );
  const images: Record<string, AttributeValue>[] = items
    .filter((item) => item.body instanceof Uint8Array)
    .map((item) => storedRowAttributes(item as unknown as StoredRow));
  if (images.length === 0) throw new Error('no inbox rows to count');
  const atMs = Date.now();
  let sequence = 10n ** 20n;
  const ms: number[] = [];
  const logs: number[] = [];
  let cells = 0;
  for (let run = 0; run < runs; run++) {
    const records = Array.from({ length: C.batchSize }, (_, i) =>
      insertRecord(images[i % images.length]!, String(++sequence), atMs),
    );
    cells = cellBatches(records.flatMap((r) => admittedRecordOf(r) ?? [])).length;
    capture.reset();
    const start = performance.now();
    await handler({ Records: records, shardId: `shardId-cost-${run}` });
    ms.push(performance.now() - start);
    logs.push(capture.bytes());
  }
  const written = (await scan(runtime.config.reputationTable!)).filter((i) => String(i.pk).startsWith('c#'));
  return {
    counterBatchMs: median(ms),
    counterBatch: C.batchSize,
    counterCellsPerBatch: cells,
    counterLogBytes: median(logs),
    counterItemBytes: Math.max(...written.map((i) => itemSize(plain(i)))),
  };
}

/**
 * The counter's line items per million events at `recordsPerBatch` (a stream record is a row: one event,
 * or an SES notification's recipients): its Lambda requests and duration, one conditional write per cell
 * and batch, its log line per batch. Lambda's stream reads are free; the on-failure queue and the
 * re-reads of a retried batch cost nothing in steady state.
 */
export function countingItems(m: CountingMeasured, events: number, recordsPerBatch: number) {
  const batches = events / recordsPerBatch;
  const batchMs = Math.ceil((m.counterBatchMs / m.counterBatch) * recordsPerBatch + WRITE_LATENCY_MS);
  const gbS = ((batches * batchMs) / 1000) * (C.memoryMb / 1024);
  const writes = batches * m.counterCellsPerBatch * writeUnits(m.counterItemBytes);
  const logGb = (batches * (m.counterLogBytes + PLATFORM_BYTES)) / 1024 ** 3;
  return [
    {
      service: 'Lambda',
      item: `reputation counter invocations (stream batches of ${recordsPerBatch})`,
      quantity: batches,
      unit: 'requests',
      price: PRICES.lambdaRequest,
    },
    {
      service: 'Lambda',
      item: `reputation counter duration (${C.memoryMb} MB arm64; ${batchMs} ms a batch)`,
      quantity: gbS,
      unit: 'GB-s',
      price: PRICES.lambdaArmGbSecond,
    },
    {
      service: 'DynamoDB',
      item: `reputation cell writes (${m.counterCellsPerBatch} cells a batch; ${m.counterItemBytes} B cells)`,
      quantity: writes,
      unit: 'write units',
      price: PRICES.dynamoWriteUnit,
    },
    {
      service: 'DynamoDB Streams',
      item: 'inbox stream reads by Lambda (free)',
      quantity: batches,
      unit: 'requests',
      price: { usd: 0 },
    },
    {
      service: 'SQS',
      item: 'reputation on-failure queue (nothing in steady state)',
      quantity: 0,
      unit: 'requests',
      price: PRICES.sqsRequest,
    },
    {
      service: 'CloudWatch Logs',
      item: 'reputation counter: a line per batch',
      quantity: logGb,
      unit: 'GB',
      price: PRICES.logsIngestGb,
    },
  ];
}

/** The sum of `countingItems`, per million events. */
export function countingPerMillion(m: CountingMeasured, recordsPerBatch: number): number {
  return countingItems(m, 1e6, recordsPerBatch).reduce((n, i) => n + i.quantity * i.price.usd, 0);
}

/** What the edge's former write per request cost for a provider posting one event a request (one 1-WCU write an event). */
export const EDGE_COUNTING_ONE_EVENT_PER_REQUEST = 1e6 * PRICES.dynamoWriteUnit.usd;

/** Assumed: the round trips of a batch's cell writes on DynamoDB (a few ms each, CELL_CONCURRENCY at once), beyond dynalite's. */
const WRITE_LATENCY_MS = 20;
/** Lambda's START/END/REPORT lines and CloudWatch's per-event overhead (cost/model.ts's figures). */
const PLATFORM_BYTES = 300 + 4 * 26;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function plain(item: Record<string, unknown>): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(item).map(([k, v]) => [k, typeof v === 'number' ? { N: String(v) } : { S: String(v) }]),
  ) as Record<string, AttributeValue>;
}
