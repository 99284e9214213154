/**
 * §11's floor: the two conditional writes every synced change needs, and nothing else. The record's
 * create-only put (the writer's, as in the sync runs, without the fast path's message) and the worker's
 * version-guarded commit of its `sync` map (clearing the outbox marker), through the real adapters, on a
 * fresh local stack, with as many in flight as the sync runs' writers. No queue, no provider, no read.
 *
 * Why: the issue's goal compares the whole pipeline with bare provider calls. Both writes are conditional
 * (the version guard is what keeps a newer change's marker from being cleared), so neither can share a
 * BatchWriteItem, and dynalite has no transactions or PartiQL to batch them with: no sync design that
 * keeps the guarantees writes less. Each change's put comes before its commit, as many changes in flight
 * as the sync runs' writers. A reference, not a bound: end to end commits a batch's changes side by side
 * while the writer's puts are in flight, so it holds more writes at once and can pass this rate
 * (BENCHMARKS.md §11 shows both).
 */
import { createDocumentClient } from '../lambdas/adapters/aws-clients.js';
import { DynamoSuppressionSync } from '../lambdas/adapters/dynamodb-suppression-sync.js';
import { DynamoSuppressionStore } from '../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../lambdas/core/suppression/index.js';
import type { SyncMap } from '../lambdas/core/sync/state.js';
import { SILENT_LOG, startLocalStack } from '../test/support/local-stack.js';
import { onCleanup } from './lib/cleanup.js';
import { type CpuSplit, cpuSplit, threadTimes } from './lib/thread-cpu.js';

export interface FloorResult {
  changesPerSecond: number;
  cpu?: CpuSplit;
}

/** Untimed changes first, as the direct baseline warms up: JIT, sockets, the table's first pages. */
const WARM_UP = 300;

export async function measureWriteFloor(changes: number, writers: number): Promise<FloorResult> {
  const existing = threadTimes();
  const stack = await startLocalStack({
    env: {},
    background: false,
    log: SILENT_LOG,
    tempDirPrefix: 'ratchet-bench-floor-',
    onCleanup,
  });
  // Two clients, as in the sync runs: the writer's own, and the runtime's (the worker's).
  const writerDoc = createDocumentClient(stack.config);
  try {
    const table = stack.config.suppressionTable;
    const store = new DynamoSuppressionStore(writerDoc, table, policyFromSettings({}));
    const ledger = new DynamoSuppressionSync(stack.clients.doc, table);
    const one = async (i: number) => {
      const email = `floor${i}@example.com`;
      const at = Date.now();
      await store.suppress(email, { actor: 'bench', reason: 'bench', at });
      // Version 1: the record's first write. A refused commit would mean the floor measured less work.
      // The map a SendGrid push of a manual suppression leaves (what the worker writes in the sync runs).
      const sync: SyncMap = { sendgrid: { at, change: 1, reason: 'manual', lists: ['global_unsubscribes'] } };
      if (!(await ledger.commit(email, 1, sync, 'clear'))) throw new Error(`floor: the commit of ${email} was refused`);
    };
    for (let i = 0; i < WARM_UP; i++) await one(i);
    let next = WARM_UP;
    // No profiler: the rates beside it are measured without one (sync-throughput.ts says why).
    const started = performance.now();
    const before = threadTimes();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (next < WARM_UP + changes) await one(next++);
      }),
    );
    const cpu = cpuSplit(before, threadTimes(), existing, changes);
    const seconds = (performance.now() - started) / 1000;
    return { changesPerSecond: changes / seconds, ...(cpu ? { cpu } : {}) };
  } finally {
    writerDoc.destroy();
    await stack.stop();
  }
}
