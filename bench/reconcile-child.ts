/**
 * The measured side of §12: `ratchet sync reconcile --provider sendgrid --json` in a process of its own,
 * so its peak RSS is reconcile's alone (not the emulators' or the fake's, which run in the bench
 * process). Prints one JSON line: peak RSS (KiB, see peakRssKb), wall time, the exit
 * code, the drift counts, and where the memory was: the largest V8 heap used and the largest memory
 * outside the V8 heap (Buffers and other native allocations: RSS minus the heap's total), sampled
 * every 100 ms.
 */
import { readFileSync } from 'node:fs';
import { ratchetCommand } from '../lib/cli/ratchet.js';

/**
 * This process's own peak RSS. On Linux, `VmHWM` from /proc/self/status: getrusage's maxRSS (what
 * `process.resourceUsage().maxRSS` returns) survives execve, so a child forked from a large bench
 * process reports the parent's RSS at the fork as its own peak; VmHWM belongs to the new address space.
 */
function peakRssKb(): number {
  try {
    const line = readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    const kb = Number(line?.match(/(\d+)\s*kB/)?.[1]);
    if (Number.isFinite(kb) && kb > 0) return kb;
  } catch {
    // Not Linux: fall through.
  }
  return process.resourceUsage().maxRSS;
}

let heapUsedMax = 0;
let outsideHeapMax = 0;
const sample = () => {
  const m = process.memoryUsage();
  heapUsedMax = Math.max(heapUsedMax, m.heapUsed);
  outsideHeapMax = Math.max(outsideHeapMax, m.rss - m.heapTotal);
};
const sampler = setInterval(sample, 100);

const lines: string[] = [];
const started = performance.now();
const code = await ratchetCommand(['sync', 'reconcile', '--provider', 'sendgrid', '--json'], process.env, {
  out: (line) => lines.push(line),
  err: (line) => process.stderr.write(`${line}\n`),
  progressTty: false,
});
const wallMs = performance.now() - started;
clearInterval(sampler);
sample();
const drift = (JSON.parse(lines.at(-1) ?? '{}') as { providers?: Record<string, Record<string, unknown[]>> }).providers
  ?.sendgrid;
process.stdout.write(
  `${JSON.stringify({
    code,
    wallMs,
    maxRssKb: peakRssKb(),
    heapUsedMaxMb: heapUsedMax / 1024 / 1024,
    outsideHeapMaxMb: outsideHeapMax / 1024 / 1024,
    missingAtProvider: drift?.missingAtProvider?.length,
    missingInRatchet: drift?.missingInRatchet?.length,
  })}\n`,
);
