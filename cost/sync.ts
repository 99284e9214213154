/**
 * `npx tsx cost/sync.ts`: the sync worker's cost per million events of the standard mix (cost/measure.ts
 * MIX), with one provider and with all five, from the dated price table (cost/prices.ts) and the
 * worker's handler time measured against the provider fakes (bench/sync-throughput.ts). Prints the
 * table and writes it into BENCHMARKS.md between the sync cost markers.
 *
 * Per sync change (a hard bounce, complaint or unsubscribe: 5 % of the mix; a delivery or soft bounce
 * writes no change), and per provider message, what AWS bills is counted line by line below.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { measureSync } from '../bench/sync-throughput.js';
import { SQS_BATCH_MAX } from '../lambdas/adapters/sqs-limits.js';
import { SYNC_SWEEPER, SYNC_WORKER } from '../lib/sync-definitions.js';
import { recordDurations } from './durations.js';
import { MIX } from './measure.js';
import { PRICE_DATE, PRICE_REGION, PRICES } from './prices.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const EVENTS = 1_000_000;
const CHANGES = EVENTS * (MIX.hard_bounce + MIX.complaint + MIX.unsubscribe);
/** Secrets Manager list prices (https://aws.amazon.com/secrets-manager/pricing/), same date as cost/prices.ts. */
const SECRET_MONTH_USD = 0.4;
/** CloudWatch standard alarm (https://aws.amazon.com/cloudwatch/pricing/). */
const ALARM_MONTH_USD = 0.1;
/** START/END/REPORT platform lines per invocation. */
const PLATFORM_LOG_BYTES = 320;

interface Line {
  item: string;
  quantity: number;
  usd: number;
}

function perMillion(providers: number, handlerMsPerMessage: number): Line[] {
  const messages = CHANGES * providers;
  const batch = SYNC_WORKER.batchSize;
  const gbSeconds = (messages * Math.ceil(handlerMsPerMessage) * (SYNC_WORKER.memoryMb / 1024)) / 1000;
  const invocations = messages / batch;
  // A receive and a delete each take at most 10 messages, whatever the batch: a batch of 50 is 5 of each.
  const sqsCalls = 2 * Math.ceil(batch / SQS_BATCH_MAX) * invocations;
  return [
    {
      item: 'SQS: fast-path SendMessageBatch (one per change)',
      quantity: CHANGES,
      usd: CHANGES * PRICES.sqsRequest.usd,
    },
    {
      item: `SQS: event source receives + deletes (${SQS_BATCH_MAX} messages a request, batches of ${batch})`,
      quantity: sqsCalls,
      usd: sqsCalls * PRICES.sqsRequest.usd,
    },
    { item: 'Lambda: worker requests', quantity: invocations, usd: invocations * PRICES.lambdaRequest.usd },
    {
      item: `Lambda: worker duration (${Math.ceil(handlerMsPerMessage)} ms/message at ${SYNC_WORKER.memoryMb} MB, arm64)`,
      quantity: gbSeconds,
      usd: gbSeconds * PRICES.lambdaArmGbSecond.usd,
    },
    {
      item: 'DynamoDB: marker in the index at the put (1 WRU per change)',
      quantity: CHANGES,
      usd: CHANGES * PRICES.dynamoWriteUnit.usd,
    },
    {
      item: 'DynamoDB: worker GetItem (strongly consistent, 1 RRU)',
      quantity: messages,
      usd: messages * PRICES.dynamoReadUnit.usd,
    },
    {
      item: 'DynamoDB: worker UpdateItem of `sync` (2 WRU: item ≤ 2 KB) + its index entry (1 WRU)',
      quantity: 3 * messages,
      usd: 3 * messages * PRICES.dynamoWriteUnit.usd,
    },
    {
      item: 'DynamoDB: provider row (pause read ≤ 1/s, lastSuccessAt write ≤ 1/10 s; counted per message, an upper bound)',
      quantity: messages,
      usd: messages * (PRICES.dynamoReadUnit.usd + PRICES.dynamoWriteUnit.usd),
    },
    {
      item: 'CloudWatch Logs: platform lines per invocation',
      quantity: invocations * PLATFORM_LOG_BYTES,
      usd: ((invocations * PLATFORM_LOG_BYTES) / 1e9) * PRICES.logsIngestGb.usd,
    },
  ];
}

function fixedPerMonth(providers: number, secrets: number): Line[] {
  const sweeps = (30 * 24 * 60) / SYNC_SWEEPER.scheduleMinutes;
  return [
    {
      item: `Sweeper: ${sweeps} invocations (≈100 ms at ${SYNC_SWEEPER.memoryMb} MB) + an index Query each`,
      quantity: sweeps,
      usd:
        sweeps *
        (PRICES.lambdaRequest.usd +
          0.1 * (SYNC_SWEEPER.memoryMb / 1024) * PRICES.lambdaArmGbSecond.usd +
          0.5 * PRICES.dynamoReadUnit.usd),
    },
    { item: `Secrets Manager: ${secrets} secret(s)`, quantity: secrets, usd: secrets * SECRET_MONTH_USD },
    // lib/constructs/sync-worker.ts: the dead letters, and each function's Errors (worker, sweeper).
    { item: 'CloudWatch: alarms (dead letters; worker and sweeper errors)', quantity: 3, usd: 3 * ALARM_MONTH_USD },
    {
      item: `(${providers} provider(s): no other fixed cost; idle event-source polling is AWS's, not billed as requests)`,
      quantity: 0,
      usd: 0,
    },
  ];
}

const sum = (lines: Line[]) => lines.reduce((n, l) => n + l.usd, 0);
const usd = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(3)}`;

function table(lines: Line[]): string {
  return [
    '| item | quantity | USD |',
    '|---|---:|---:|',
    ...lines.map((l) => `| ${l.item} | ${Math.round(l.quantity).toLocaleString('en-US')} | ${usd(l.usd)} |`),
    `| **total** | | **${usd(sum(lines))}** |`,
  ].join('\n');
}

async function main(): Promise<void> {
  const changes = Number(process.env.COST_SYNC_CHANGES ?? 500);
  console.error(`measuring the worker's handler time on ${changes} changes against the SendGrid fake…`);
  const measured = await measureSync({ changes });
  // `npm run capacity` reads it (cost/durations.ts).
  recordDurations({ syncWorkerMsPerMessage: measured.handlerMsPerMessage });
  const one = perMillion(1, measured.handlerMsPerMessage);
  const five = perMillion(5, measured.handlerMsPerMessage);
  const markdown = [
    '<!-- sync-cost:start -->',
    '### Sync worker cost per million events (standard mix)',
    '',
    `${CHANGES.toLocaleString('en-US')} sync changes per million events (hard bounces ${MIX.hard_bounce * 100} %, complaints ${MIX.complaint * 100} %, unsubscribes ${MIX.unsubscribe * 100} %; deliveries and soft bounces write none). Prices: ${PRICE_REGION}, ${PRICE_DATE}, no free tier. Handler time ${measured.handlerMsPerMessage.toFixed(1)} ms per message, measured on ${changes} changes against the SendGrid fake on this shared machine (batches of ${measured.messagesPerBatch.toFixed(1)}), billed rounded up; AWS latencies differ.`,
    '',
    `**One provider: ${usd(sum(one))} per million events**`,
    '',
    table(one),
    '',
    `**All five providers: ${usd(sum(five))} per million events** (${(sum(five) / sum(one)).toFixed(2)}× one provider)`,
    '',
    table(five),
    '',
    `Fixed per month, whatever the traffic: ${usd(sum(fixedPerMonth(1, 1)))} with one provider other than SES, ${usd(sum(fixedPerMonth(5, 4)))} with all five.`,
    '',
    table(fixedPerMonth(5, 4)),
    '<!-- sync-cost:end -->',
  ].join('\n');
  console.log(markdown);
  const file = resolve(import.meta.dirname, '..', 'BENCHMARKS.md');
  const text = readFileSync(file, 'utf8');
  const block = /<!-- sync-cost:start -->[\s\S]*<!-- sync-cost:end -->/;
  writeFileSync(file, block.test(text) ? text.replace(block, markdown) : `${text.trimEnd()}\n\n${markdown}\n`);
}

await main();
