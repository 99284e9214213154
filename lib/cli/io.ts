/**
 * Where the CLIs write, injectable so tests can run a command in-process and read what it printed.
 * Human output shows times as ISO 8601; `--json` keeps the stored epoch values untouched.
 */
import { wasLeased } from '../../lambdas/core/sync/lease.js';
import { DEAD_DUE_MS } from '../../lambdas/core/sync/ledger.js';

export interface Io {
  /** One line of normal output (stdout). */
  out(line: string): void;
  /** One line of diagnostics (stderr). */
  err(line: string): void;
  /** Progress bars draw only on an interactive stderr. */
  progressTty: boolean;
}

export const processIo: Io = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  progressTty: process.stderr.isTTY === true,
};

/**
 * `ratchet suppressions list | head` closes our stdout early: that is the reader saying "enough", not a
 * failure, so end quietly instead of printing an EPIPE stack trace.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

/** Epoch ms from here on; smaller numbers are epoch seconds (TTL attributes). 1e11 ms is 1973, 1e11 s is year 5138. */
const MS_THRESHOLD = 1e11;
/** Times by name: `at`, a name ending in `At`, and `since` (when a retry's horizon began). */
const TIME_KEY = /(^at|At|^since)$/;
/** The sync outbox marker (`syncDue`): a time, with two values that mean more than one (core/sync). */
const MARKER_KEY = /(^due|Due)$/;

/** What a parked marker says: indexed for `sync status`, never due (core/sync/ledger.ts DEAD_DUE_MS). */
export const PARKED_MARKER = 'parked: never due (a dead-lettered change or a refused removal)';

function isoTime(value: number): string | number {
  const ms = Math.abs(value) >= MS_THRESHOLD ? value : value * 1000;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/**
 * The outbox marker for people: the time it falls due; a lease (half a millisecond past a whole one,
 * core/sync/lease.ts) says that a message was sent; the parked value says so instead of showing the
 * largest Date, which reads as year 275760.
 */
function markerTime(value: number): string | number {
  if (value >= DEAD_DUE_MS) return PARKED_MARKER;
  if (wasLeased(value)) return `leased until ${isoTime(Math.floor(value))} (a message was sent)`;
  return isoTime(value);
}

/**
 * A copy with every time field (`at`, `since`, or a name ending in `At`, holding a number) as ISO 8601,
 * and the outbox marker (a name ending in `Due`) as `markerTime` says. Generic on purpose: the CLI does
 * not know the table's attributes, only the naming convention for times.
 */
export function withIsoTimes(value: unknown, key = ''): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (MARKER_KEY.test(key)) return markerTime(value);
    if (TIME_KEY.test(key)) return isoTime(value);
  }
  if (Array.isArray(value)) return value.map((item) => withIsoTimes(item));
  if (value instanceof Uint8Array) return value;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIsoTimes(v, k)]));
  }
  return value;
}

/** Pretty JSON for people (ISO times), or the stored values as they are with `--json`. */
export function show(value: unknown, options: { json?: boolean; compact?: boolean }): string {
  const shown = options.json ? value : withIsoTimes(value);
  return options.compact ? JSON.stringify(shown) : JSON.stringify(shown, null, 2);
}
