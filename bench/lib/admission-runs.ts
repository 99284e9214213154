/**
 * Helpers for §3's runs: combining a path's rounds, refusing a run with failures, waiting for the
 * running consumer to empty the queue after the timed rounds.
 */
import type { LoadResult } from './load.js';
import type { BenchStack } from './local-stack.js';

/** A load run, with the client process's CPU when an HTTP client drove it. */
export type Run = LoadResult & { clientCpuMs?: number };

/** After the timed rounds: how long until the running consumer has emptied the queue (at most a minute). */
export async function waitForDrain(stack: BenchStack): Promise<{ ms?: number }> {
  const start = performance.now();
  while (performance.now() - start < 60_000) {
    const depth = await stack.queueDepth();
    if (depth.visible === 0 && depth.inFlight === 0) return { ms: performance.now() - start };
    await new Promise((r) => setTimeout(r, 200));
  }
  return {};
}

export function combine(runs: readonly Run[]): Run {
  const clientCpu = runs.map((r) => r.clientCpuMs);
  return {
    clientCpuMs: clientCpu.every((ms) => ms !== undefined)
      ? clientCpu.reduce((n: number, ms) => n + ms!, 0)
      : undefined,
    count: runs.reduce((n, r) => n + r.count, 0),
    concurrency: runs[0]!.concurrency,
    wallMs: runs.reduce((n, r) => n + r.wallMs, 0),
    cpuMs: runs.reduce((n, r) => n + r.cpuMs, 0),
    latenciesMs: runs.flatMap((r) => r.latenciesMs),
    failures: runs.reduce((n, r) => n + r.failures, 0),
    failureSamples: runs.flatMap((r) => r.failureSamples).slice(0, 3),
  };
}

export function assertClean(what: string, result: LoadResult): void {
  if (result.failures > 0) {
    throw new Error(
      `${what}: ${result.failures}/${result.count} requests failed, e.g. ${result.failureSamples.join('; ')}`,
    );
  }
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
