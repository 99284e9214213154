/** A Log that records every line as [level, message, fields], for tests that pin what is logged. */
import type { Log } from '../../../lambdas/core/pipeline/ports.js';

export function recordingLog() {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const log: Required<Log> = {
    debug: (m, f) => lines.push(['debug', m, f]),
    info: (m, f) => lines.push(['info', m, f]),
    warn: (m, f) => lines.push(['warn', m, f]),
    error: (m, f) => lines.push(['error', m, f]),
  };
  return { log, lines };
}
