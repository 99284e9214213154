/**
 * The measured side of §12: `ratchet sync reconcile --provider sendgrid --json` in a process of its own,
 * so its peak RSS is reconcile's alone (not the emulators' or the fake's, which run in the bench
 * process). Prints one JSON line: peak RSS (process.resourceUsage().maxRSS, KiB), wall time, the exit
 * code and the drift counts.
 */
import { ratchetCommand } from '../lib/cli/ratchet.js';

const lines: string[] = [];
const started = performance.now();
const code = await ratchetCommand(['sync', 'reconcile', '--provider', 'sendgrid', '--json'], process.env, {
  out: (line) => lines.push(line),
  err: (line) => process.stderr.write(`${line}\n`),
  progressTty: false,
});
const wallMs = performance.now() - started;
const drift = (JSON.parse(lines.at(-1) ?? '{}') as { providers?: Record<string, Record<string, unknown[]>> }).providers
  ?.sendgrid;
process.stdout.write(
  `${JSON.stringify({
    code,
    wallMs,
    maxRssKb: process.resourceUsage().maxRSS,
    missingAtProvider: drift?.missingAtProvider?.length,
    missingInRatchet: drift?.missingInRatchet?.length,
  })}\n`,
);
