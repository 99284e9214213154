/**
 * Interleaved micro-benchmarks: every case runs in rounds, one batch per case per round, with the
 * starting case rotated each round. A noisy neighbour therefore slows all cases of a round alike, and
 * the paired per-round ratio (stats.pairedRatio) cancels most of it.
 */
import { median } from './stats.js';

export interface Case {
  name: string;
  /** One operation. May return a promise, which is awaited (the await is part of the cost). */
  fn: () => unknown;
}

export interface CaseResult {
  name: string;
  /** µs per operation, one entry per round. */
  usPerOp: number[];
  medianUs: number;
  opsPerBatch: number;
}

export interface InterleaveOptions {
  rounds: number;
  /** Wall time each batch aims for; the op count per batch is calibrated from the warm-up. */
  batchMs: number;
  /** JIT warm-up per case before calibration. */
  warmupMs: number;
}

export const DEFAULT_INTERLEAVE: InterleaveOptions = { rounds: 15, batchMs: 15, warmupMs: 100 };

// Results go here so the optimizer cannot discard the work.
let sink: unknown;

async function runBatch(fn: () => unknown, ops: number, isAsync: boolean): Promise<number> {
  const start = performance.now();
  if (isAsync) {
    for (let i = 0; i < ops; i++) sink = await fn();
  } else {
    for (let i = 0; i < ops; i++) sink = fn();
  }
  return ((performance.now() - start) * 1000) / ops;
}

export async function runInterleaved(
  cases: readonly Case[],
  options: InterleaveOptions = DEFAULT_INTERLEAVE,
): Promise<Map<string, CaseResult>> {
  const plans = [];
  for (const c of cases) {
    const first = c.fn();
    const isAsync = typeof (first as { then?: unknown } | undefined)?.then === 'function';
    if (isAsync) await first;
    // Warm up, and learn the per-op cost to size the batches.
    let ops = 0;
    const start = performance.now();
    do {
      if (isAsync) sink = await c.fn();
      else sink = c.fn();
      ops++;
    } while (performance.now() - start < options.warmupMs);
    const perOpMs = (performance.now() - start) / ops;
    plans.push({
      c,
      isAsync,
      opsPerBatch: Math.max(1, Math.round(options.batchMs / perOpMs)),
      samples: [] as number[],
    });
  }
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < plans.length; k++) {
      const plan = plans[(round + k) % plans.length]!;
      plan.samples.push(await runBatch(plan.c.fn, plan.opsPerBatch, plan.isAsync));
    }
  }
  return new Map(
    plans.map((p) => [
      p.c.name,
      { name: p.c.name, usPerOp: p.samples, medianUs: median(p.samples), opsPerBatch: p.opsPerBatch },
    ]),
  );
}

export function resultOf(results: Map<string, CaseResult>, name: string): CaseResult {
  const result = results.get(name);
  if (!result) throw new Error(`no result for case ${name}`);
  return result;
}
