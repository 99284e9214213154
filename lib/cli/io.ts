/**
 * Where the CLIs write, injectable so tests can run a command in-process and read what it printed.
 * Human output shows times as ISO 8601; `--json` keeps the stored epoch values untouched.
 */
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
const TIME_KEY = /(^at|At)$/;

/**
 * A copy with every time field (`at`, or a name ending in `At`, holding a number) as ISO 8601. Generic
 * on purpose: the CLI does not know the table's attributes, only the naming convention for times.
 */
export function withIsoTimes(value: unknown, key = ''): unknown {
  if (typeof value === 'number' && TIME_KEY.test(key) && Number.isFinite(value)) {
    const ms = Math.abs(value) >= MS_THRESHOLD ? value : value * 1000;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? value : date.toISOString();
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
