/**
 * §12 Reconcile at scale: `ratchet sync reconcile` against N suppression records in dynalite and N
 * entries at the SendGrid fake (which pages its lists 500 at a time, as SendGrid does), for N = 0,
 * 10,000, 50,000 and 100,000. Reconcile runs in a child process (reconcile-child.ts), so its peak RSS
 * is its own; the bench process holds dynalite and the fake. Target: under 512 MB at 100,000, and RSS
 * that does not grow with N (the spill to disk, not the heap, takes the lists).
 *
 * The seed: records 0..N-1 suppressed (hard bounce), pushed to SendGrid's global unsubscribes; the fake
 * holds the same addresses except every 100th, plus N/100 addresses Ratchet has no record of. So each
 * run finds N/100 missing at the provider and N/100 missing in Ratchet (the report holds only those).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SYNC_ATTRIBUTE } from '../lambdas/adapters/suppression-sync-fields.js';
import { importEntry } from '../lambdas/core/suppression/index.js';
import { CURRENT_SUPPRESSION_SCHEMA, SUPPRESSION_SCHEMA_ATTRIBUTE } from '../lambdas/core/suppression/schema.js';
import { DEFAULT_RUN_BYTES } from '../lib/cli/sorted-spill.js';
import { ensureTables } from '../lib/local/bootstrap.js';
import { startSendGridFake } from '../test/fakes/providers/sendgrid.js';
import { onCleanup } from './lib/cleanup.js';
import { type BenchStack, withBenchStack } from './lib/local-stack.js';
import { fmt } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const SIZES = (process.env.BENCH_RECONCILE_SIZES ?? '0,10000,50000,100000').split(',').map(Number);
const TARGET_MB = 512;
const SEED_CONCURRENCY = 8;
/** The second run's heap cap: a live set that grew with N would fail there with "heap out of memory". */
const CAPPED_OLD_SPACE_MB = 48;
const CHILD = fileURLToPath(new URL('./reconcile-child.ts', import.meta.url));
const DAY = Date.UTC(2026, 0, 1);

interface Run {
  size: number;
  seedMs: number;
  wallMs: number;
  maxRssMb: number;
  /** The same run with V8's old space capped at CAPPED_OLD_SPACE_MB: completing proves the live set fits. */
  cappedRssMb: number;
  cappedWallMs: number;
  /** Largest V8 heap used, and largest RSS outside the V8 heap, sampled in the run with node's defaults. */
  heapUsedMaxMb: number;
  outsideHeapMaxMb: number;
  missingAtProvider: number;
  missingInRatchet: number;
}

export async function benchReconcileScale(options: { log?: (line: string) => void } = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const runs: Run[] = [];
  await withBenchStack(async (stack) => {
    for (const size of SIZES) {
      runs.push(await measure(stack, size));
      const r = runs.at(-1)!;
      log(
        `  ${size}: ${fmt(r.wallMs / 1000)} s, peak RSS ${fmt(r.maxRssMb)} MB; old space capped at ${CAPPED_OLD_SPACE_MB} MB: ${fmt(r.cappedWallMs / 1000)} s, ${fmt(r.cappedRssMb)} MB (seeded in ${fmt(r.seedMs / 1000)} s)`,
      );
    }
  });
  const largest = runs.at(-1)!;
  const floor = runs[0]!;
  const perRecord = (mb: number) => (largest.size > floor.size ? (mb * 1024 * 1024) / largest.size : 0);
  const growth = largest.maxRssMb - floor.maxRssMb;
  const cappedGrowth = largest.cappedRssMb - floor.cappedRssMb;
  return {
    id: 'reconcile-scale',
    title: '12. Reconcile at scale (local stack, SendGrid fake)',
    method: [
      'Per size N: a fresh suppression table in the bench stack’s dynalite gets N records (BatchWriteItem, untimed): hard bounces pushed to SendGrid’s `global_unsubscribes` (their `sync` map says so). A fresh SendGrid fake (test/fakes/providers/sendgrid.ts, 500 per page like the API) holds the same addresses but every 100th, plus N/100 others.',
      '`ratchet sync reconcile --provider sendgrid --json` (dry run) runs in a child process (`node --import tsx bench/reconcile-child.ts`), which reports its peak RSS over its whole life, module loading included (`VmHWM` from /proc/self/status on Linux: getrusage’s maxRSS survives execve, so a child of a large bench process would report the parent’s size at the fork), its wall time, and, sampled every 100 ms, the largest V8 heap used and the largest RSS outside the V8 heap (RSS − heapTotal: Buffers, native allocations, code). N = 0 is the floor: the process with everything loaded and nothing to compare.',
      `Each size runs twice: with node's defaults (the figure the target is about), then with \`--max-old-space-size=${CAPPED_OLD_SPACE_MB}\`. Peak RSS with the defaults is mostly how far V8 lets the heap grow before collecting; the capped run completing (it would die with "heap out of memory" otherwise) shows that what reconcile keeps alive does not grow with N.`,
      `Reconcile spills the provider’s pages and the table’s scan pages to temp files sorted by address (runs of ${DEFAULT_RUN_BYTES / 1024 / 1024} MB of JSON) and merges them one address at a time (docs/sync.md, “Reconcile”). One run per size and setting on a shared, loaded machine.`,
    ],
    tables: [
      {
        columns: [
          'N records = N entries',
          'drift found (each way)',
          'reconcile s',
          'peak RSS MB',
          'largest heap used MB',
          'largest RSS outside the heap MB',
          `old space ≤ ${CAPPED_OLD_SPACE_MB} MB: s`,
          `old space ≤ ${CAPPED_OLD_SPACE_MB} MB: peak RSS MB`,
          'seed s',
        ],
        rows: runs.map((r) => [
          r.size.toLocaleString('en-US'),
          `${r.missingAtProvider} / ${r.missingInRatchet}`,
          fmt(r.wallMs / 1000),
          fmt(r.maxRssMb),
          fmt(r.heapUsedMaxMb),
          fmt(r.outsideHeapMaxMb),
          fmt(r.cappedWallMs / 1000),
          fmt(r.cappedRssMb),
          fmt(r.seedMs / 1000),
        ]),
      },
    ],
    verdicts: [
      {
        subject: `reconcile peak RSS at ${largest.size.toLocaleString('en-US')} records and entries`,
        target: `< ${TARGET_MB} MB`,
        measured: `${fmt(largest.maxRssMb)} MB`,
        meets: largest.maxRssMb < TARGET_MB,
      },
    ],
    informational: [
      {
        subject: `peak RSS growth per record, node defaults (0 → ${largest.size.toLocaleString('en-US')})`,
        measured: `${fmt(perRecord(growth))} bytes`,
        note: `${fmt(growth)} MB over ${fmt(floor.maxRssMb)} MB: mostly how far V8 grows the heap before collecting, with a ${DEFAULT_RUN_BYTES / 1024 / 1024} MB run buffer and the drift found`,
      },
      {
        subject: `peak RSS growth per record, old space ≤ ${CAPPED_OLD_SPACE_MB} MB (0 → ${largest.size.toLocaleString('en-US')})`,
        measured: `${fmt(perRecord(cappedGrowth))} bytes`,
        note: `${fmt(cappedGrowth)} MB over ${fmt(floor.cappedRssMb)} MB: the run completing shows the live JS heap stays under ${CAPPED_OLD_SPACE_MB} MB; the rest is outside V8's old space (young generation, Buffers, the allocator)`,
      },
    ],
    notes: [
      'The drift is 1 % each way by construction, and the counts found are checked against it, so a run that compared nothing fails instead of looking fast.',
      'The report itself (the drift lists) is the one thing kept in memory, so memory grows with the drift found, not with the table or the lists.',
      `The capped runs are slower: with the old space that small, V8 collects far more often.`,
    ],
    wallMs: performance.now() - started,
  };
}

async function measure(stack: BenchStack, size: number): Promise<Run> {
  const table = `bench-reconcile-${size}`;
  const client = new DynamoDBClient({
    region: stack.config.region,
    endpoint: stack.config.dynamoEndpoint!,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(client, { inbox: `${table}-inbox`, suppression: table });
  const fake = await startSendGridFake();
  const cancel = onCleanup(() => fake.close());
  const dataDir = await mkdtemp(join(tmpdir(), 'ratchet-bench-reconcile-'));
  try {
    const seedStarted = performance.now();
    await seedRecords(stack, table, size);
    for (let i = 0; i < size; i++) {
      if (i % 100 !== 0) fake.seed('unsubscribes', { email: address(i), created: DAY / 1000 + i });
      else fake.seed('unsubscribes', { email: `only-at-sendgrid-${i}@bench.example.com`, created: DAY / 1000 - i });
    }
    const seedMs = performance.now() - seedStarted;
    const env = {
      PATH: process.env.PATH,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      DYNAMODB_ENDPOINT: stack.config.dynamoEndpoint!,
      AWS_REGION: stack.config.region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      SUPPRESSION_TABLE: table,
      INBOX_TABLE: `${table}-inbox`,
      RATCHET_DATA_DIR: dataDir,
      SYNC_PROVIDERS: 'sendgrid',
      SENDGRID_API_KEY: fake.apiKey,
      SENDGRID_API_URL: fake.url,
    };
    const free = await runChild(env, [], size);
    const capped = await runChild(env, [`--max-old-space-size=${CAPPED_OLD_SPACE_MB}`], size);
    return {
      size,
      seedMs,
      wallMs: free.wallMs,
      maxRssMb: free.maxRssKb / 1024,
      cappedRssMb: capped.maxRssKb / 1024,
      cappedWallMs: capped.wallMs,
      heapUsedMaxMb: free.heapUsedMaxMb,
      outsideHeapMaxMb: free.outsideHeapMaxMb,
      missingAtProvider: free.missingAtProvider,
      missingInRatchet: free.missingInRatchet,
    };
  } finally {
    cancel();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
    for (const name of [table, `${table}-inbox`])
      await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
    client.destroy();
  }
}

interface ChildResult {
  code: number;
  wallMs: number;
  maxRssKb: number;
  heapUsedMaxMb: number;
  outsideHeapMaxMb: number;
  missingAtProvider: number;
  missingInRatchet: number;
}

/** One reconcile in a fresh process with these node flags; its drift is checked against the seed's. */
async function runChild(env: Record<string, string | undefined>, flags: string[], size: number): Promise<ChildResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...flags, '--import', import.meta.resolve('tsx'), CHILD],
    { env, maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
  const expected = Math.ceil(size / 100);
  if (result.code !== 1 && size > 0) throw new Error(`reconcile at ${size} exited ${result.code}`);
  if (result.missingAtProvider !== expected || result.missingInRatchet !== expected)
    throw new Error(`reconcile at ${size} (${flags.join(' ')}): expected ${expected} each way, got ${stdout.trim()}`);
  return result;
}

const address = (i: number) => `reader-${i}@bench.example.com`;

/** N suppressed records as the store writes them, pushed to SendGrid's global unsubscribes. */
async function seedRecords(stack: BenchStack, table: string, size: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < size) {
      const start = next;
      next = Math.min(size, next + 25);
      let items = Array.from({ length: next - start }, (_, k) => ({ PutRequest: { Item: item(start + k) } }));
      while (items.length > 0) {
        const answer = await stack.clients.doc.send(new BatchWriteCommand({ RequestItems: { [table]: items } }));
        items = (answer.UnprocessedItems?.[table] ?? []) as typeof items;
      }
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

function item(i: number): Record<string, unknown> {
  const email = address(i);
  const at = DAY + i;
  const { record } = importEntry(undefined, email, {
    kind: 'hard_bounce',
    occurredAt: at,
    actor: 'import:bench',
    entryId: `bench:${i}`,
    source: 'bench',
  });
  return {
    ...record,
    version: 1,
    updatedAt: at,
    [SUPPRESSION_SCHEMA_ATTRIBUTE]: CURRENT_SUPPRESSION_SCHEMA,
    [SYNC_ATTRIBUTE.map]: { sendgrid: { at, reason: 'hard_bounce', lists: ['global_unsubscribes'] } },
  };
}
