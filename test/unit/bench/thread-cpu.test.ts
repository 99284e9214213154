import { Session } from 'node:inspector/promises';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuSplit, threadTimes } from '../../../bench/lib/thread-cpu.js';

// A thread that does a fixed amount of work (hashing 1 MB 400 times, about 320 ms of one core here), so its CPU
// time does not shrink when a loaded machine deschedules it; then it waits to be stopped (so the second reading sees it).
const BURNER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const block = Buffer.alloc(1 << 20, 7);
for (let i = 0; i < 400; i++) createHash('sha256').update(block).digest();
parentPort.postMessage('burnt');
setInterval(() => {}, 1000);
`;
/** Less than the burner's work takes on any machine that runs the suite in time. */
const BURNT_AT_LEAST_US = 100_000;

async function burnOnThread(): Promise<Worker> {
  const worker = new Worker(BURNER, { eval: true });
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return worker;
}

describe.runIf(process.platform === 'linux')('per-thread CPU from /proc (bench §11)', () => {
  it('puts a thread started after the first reading in `started`, not on the main thread or the helpers', async () => {
    const existing = threadTimes();
    const before = threadTimes();
    const worker = await burnOnThread();
    const after = threadTimes();
    await worker.terminate();
    const split = cpuSplit(before, after, existing, 1)!;
    expect(split.started).toBeGreaterThanOrEqual(BURNT_AT_LEAST_US);
    expect(split.main).toBeLessThan(split.started);
    expect(split.total).toBeCloseTo(split.main + split.started + split.helpers, 6);
  });

  it('leaves the CPU profiler’s sampling thread out of the total', async () => {
    const existing = threadTimes();
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
    const before = threadTimes();
    const worker = await burnOnThread();
    const after = threadTimes();
    await session.post('Profiler.stop');
    session.disconnect();
    await worker.terminate();
    const split = cpuSplit(before, after, existing, 1)!;
    const [samplerTid, sampler] = [...after!].find(([, t]) => t.name.startsWith('v8:Prof')) ?? [];
    expect(sampler, 'the profiler runs a thread of its own').toBeDefined();
    const samplerSpent = sampler!.us - (before!.get(samplerTid!)?.us ?? 0);
    // Sampling every 50 µs keeps the sampler busy for at least a clock tick, so the test can tell where it went.
    expect(samplerSpent).toBeGreaterThan(0);
    expect(split.profiler).toBe(samplerSpent);
    // The sampler started after `existing`: were it not told apart, it would be in `started` and in the total.
    expect(split.total).toBeCloseTo(split.main + split.started + split.helpers, 6);
  });

  it('divides by the operations and sets the ceiling from the cores', () => {
    const existing = new Map([[1, { name: 'node', us: 0 }]]);
    const before = new Map([
      [process.pid, { name: 'node', us: 1_000 }],
      [1, { name: 'node', us: 0 }],
    ]);
    const after = new Map([
      [process.pid, { name: 'node', us: 5_000 }],
      [1, { name: 'node', us: 2_000 }],
      [2, { name: 'node', us: 2_000 }],
      [3, { name: 'v8:ProfEvntProc', us: 9_000 }],
    ]);
    const split = cpuSplit(before, after, existing, 2)!;
    expect(split).toMatchObject({ main: 2_000, helpers: 1_000, started: 1_000, profiler: 4_500, total: 4_000 });
    expect(split.ceilingPerSecond).toBeCloseTo((split.cores * 1e6) / 4_000, 6);
  });

  it('says nothing when a reading is missing (not Linux)', () => {
    expect(cpuSplit(undefined, threadTimes(), threadTimes(), 1)).toBeUndefined();
  });
});
