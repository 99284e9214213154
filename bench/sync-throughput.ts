/**
 * §10 Sync throughput against the provider fakes: N suppression changes (default 10,000) written the
 * way the consumer writes them (guarded put with the outbox marker, then the fast-path message), then
 * pushed by the real sync worker handler through the local sync poller to the HTTP fakes, until every
 * marker is clear. Reported: changes per second end to end, and RSS / heap before and after (bounded
 * memory: nothing grows with N but the fakes' own lists). Baseline in the same run: the same number of
 * pushes made directly through the same SyncTarget, sequentially in as many loops, with no queue or table.
 */
import { DynamoSuppressionStore } from '../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../lambdas/core/suppression/index.js';
import { startProviderFakes } from '../test/fakes/providers/index.js';
import { SILENT_LOG, startLocalStack } from '../test/support/local-stack.js';
import { onCleanup } from './lib/cleanup.js';
import { countCommands } from './lib/count-calls.js';
import { fmt } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const LOOPS = 4;

export interface SyncBenchResult {
  changes: number;
  changesPerSecond: number;
  directPerSecond: number;
  /** Handler wall time per message, ms (for the cost model). */
  handlerMsPerMessage: number;
  messagesPerBatch: number;
  rssGrowthMb: number;
  heapGrowthMb: number;
  /** DynamoDB calls per change: the writer's (read and guarded put) and the worker's (record reads, sync writes, provider rows). */
  writerCallsPerChange: number;
  workerCallsPerChange: number;
  /** The worker's calls by command, per change. */
  workerCalls: Record<string, number>;
}

export async function measureSync(
  options: { changes?: number; provider?: 'sendgrid' | 'resend' | 'ses' } = {},
): Promise<SyncBenchResult> {
  const changes = options.changes ?? Number(process.env.BENCH_SYNC_CHANGES ?? 10_000);
  const provider = options.provider ?? 'sendgrid';
  const fakes = await startProviderFakes();
  const cancel = onCleanup(() => fakes.close());
  const env = {
    ...fakes.env,
    SYNC_PROVIDERS: provider,
    [`SYNC_${provider.toUpperCase()}_RATE`]: '1000',
    [`SYNC_${provider.toUpperCase()}_CONCURRENCY`]: '16',
  };
  const stack = await startLocalStack({
    env,
    background: false,
    log: SILENT_LOG,
    tempDirPrefix: 'ratchet-bench-sync-',
    onCleanup,
  });
  try {
    const sync = stack.sync!;
    const store = new DynamoSuppressionStore(
      stack.clients.doc,
      stack.config.suppressionTable,
      policyFromSettings(env),
      { onSyncChange: sync.fastPath },
    );
    const calls = countCommands(stack.clients.doc);
    let handlerMs = 0;
    let messages = 0;
    let batches = 0;
    const handler = sync.worker.handler;
    const timed: typeof handler = async (event) => {
      const t = performance.now();
      const out = await handler(event);
      handlerMs += performance.now() - t;
      messages += event.Records.length;
      batches++;
      return out;
    };
    (sync.worker as { handler: typeof handler }).handler = timed;

    global.gc?.();
    const before = process.memoryUsage();
    const started = performance.now();
    let written = 0;
    const writer = async () => {
      while (written < changes) {
        const i = written++;
        await store.suppress(`bench${i}@example.com`, { actor: 'bench', reason: 'bench', at: Date.now() });
      }
    };
    let running = true;
    const poll = async () => {
      while (running) if ((await sync.pollOnce(0)) === 0) await new Promise((r) => setTimeout(r, 5));
    };
    const pollers = Array.from({ length: LOOPS }, poll);
    await Promise.all(Array.from({ length: 8 }, writer));
    const target =
      provider === 'ses'
        ? () => fakes.ses.entries().length
        : provider === 'resend'
          ? () => fakes.resend.entries().length
          : () => fakes.sendgrid.list('unsubscribes').length;
    while (target() < changes) await new Promise((r) => setTimeout(r, 20));
    const elapsed = (performance.now() - started) / 1000;
    running = false;
    await Promise.all(pollers);
    // The writer's calls: one GetItem and one guarded PutItem per change (distinct addresses: no conflict);
    // every other call is the worker's (its GetItems are the provider row's pause reads).
    const all = Object.fromEntries(calls);
    const writerCalls = changes + (all.PutCommand ?? 0);
    const workerCalls = Object.fromEntries(
      Object.entries(all)
        .filter(([name]) => name !== 'PutCommand')
        .map(([name, n]) => [name, (name === 'GetCommand' ? n - changes : n) / changes]),
    );
    global.gc?.();
    const after = process.memoryUsage();

    // Baseline: the same pushes straight through the adapter.
    const direct = [
      ...(await import('../lib/local/sync-targets.js').then((m) => m.localSyncTargets(env))).values(),
    ][0]!;
    const baseCount = Math.min(changes, 2000);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < baseCount)
          await direct.apply({ op: 'suppress', email: `direct${next++}@example.com`, reason: 'manual' });
      }),
    );
    const directPerSecond = baseCount / ((performance.now() - t0) / 1000);
    return {
      changes,
      changesPerSecond: changes / elapsed,
      directPerSecond,
      handlerMsPerMessage: handlerMs / Math.max(1, messages),
      messagesPerBatch: messages / Math.max(1, batches),
      rssGrowthMb: (after.rss - before.rss) / 2 ** 20,
      heapGrowthMb: (after.heapUsed - before.heapUsed) / 2 ** 20,
      writerCallsPerChange: writerCalls / changes,
      workerCallsPerChange: Object.values(workerCalls).reduce((a, b) => a + b, 0),
      workerCalls,
    };
  } finally {
    await stack.stop();
    await fakes.close();
    cancel();
  }
}

export async function benchSyncThroughput(): Promise<SectionResult> {
  const started = performance.now();
  const r = await measureSync();
  return {
    id: 'sync-throughput',
    title: '11. Sync throughput against the provider fakes',
    method: [
      `${r.changes} manual suppressions written through DynamoSuppressionStore with the fast path (outbox marker in the put, one message per change), pushed to the SendGrid fake by the real sync worker handler through the local sync poller (${LOOPS} receive loops, SYNC_SENDGRID_CONCURRENCY 16, rate 1000/s), all on one process with dynalite + fauxqs.`,
      'Baseline: 2,000 pushes straight through the same SendGrid SyncTarget with 16 in flight, no queue and no table.',
      'Memory: process RSS and heap used, before the first write and after the last push (after a GC when --expose-gc).',
      "DynamoDB calls: every command the stack's document client sent while the changes were written and pushed, per change; the writer's are one GetItem and one PutItem per change, the rest are the worker's (one BatchGetItem per received batch, one UpdateItem per change, the provider row's pause read at most once a second, the last-success write every 10 s).",
    ],
    tables: [
      {
        columns: ['measure', 'value'],
        rows: [
          ['changes pushed end to end', String(r.changes)],
          ['changes/s end to end', fmt(r.changesPerSecond)],
          ['pushes/s direct (baseline)', fmt(r.directPerSecond)],
          ['end to end / direct (goal ≥ 0.3)', fmt(r.changesPerSecond / r.directPerSecond)],
          ['DynamoDB calls per change, writer (read + guarded put)', fmt(r.writerCallsPerChange)],
          ['DynamoDB calls per change, worker', fmt(r.workerCallsPerChange)],
          ...Object.entries(r.workerCalls).map(([name, n]) => [`  worker ${name} per change`, fmt(n)]),
          ['worker handler ms per message', fmt(r.handlerMsPerMessage)],
          ['messages per batch', fmt(r.messagesPerBatch)],
          ['RSS growth (MB)', fmt(r.rssGrowthMb)],
          ['heap growth (MB)', fmt(r.heapGrowthMb)],
        ],
      },
    ],
    verdicts: [],
    informational: [
      {
        subject: 'sync changes/s (SendGrid fake)',
        measured: fmt(r.changesPerSecond),
        note: `direct ${fmt(r.directPerSecond)}/s`,
      },
      {
        subject: 'sync end to end / direct (goal ≥ 0.3)',
        measured: fmt(r.changesPerSecond / r.directPerSecond),
        note: `${fmt(r.workerCallsPerChange)} worker DynamoDB calls per change`,
      },
    ],
    notes: [
      "The fakes, dynalite, fauxqs and the worker share this process and the machine's 2 cores with other jobs: the ratio to the direct baseline is the number to read.",
    ],
    wallMs: performance.now() - started,
  };
}
