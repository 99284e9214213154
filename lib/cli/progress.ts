/**
 * A progress bar on stderr, only when stderr is a terminal (so logs and pipes get just the summary):
 * n/N, percent, rate and ETA, drawn by cli-progress. Lines the command reports while it runs (an
 * invalid row, a kept message) go through `log`, which prints them above the bar instead of through it.
 * Without a known total the bar shows the count and the rate. cli-progress redraws at most every
 * 100 ms, so a 100,000-row import does not spend its time drawing.
 */
import { MultiBar, type SingleBar } from 'cli-progress';
import type { Io } from './io.js';

export interface Progress {
  tick(by?: number): void;
  /** Sets the count outright (for progress reported by someone else, such as an SQS move task). */
  update(count: number): void;
  /** Sets or raises the total once it is known. */
  total(total: number): void;
  /** One line of diagnostics, printed above the bar (or to stderr as is without a terminal). */
  log(line: string): void;
  done(): void;
}

const KNOWN = '{label} [{bar}] {value}/{total} {percentage}% | {rate}/s | ETA {eta_formatted}';
const UNKNOWN = '{label} {value} | {rate}/s';
const BAR_SIZE = 30;

export function progressBar(
  io: Io,
  label: string,
  total?: number,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (!io.progressTty) {
    return {
      tick: () => undefined,
      update: () => undefined,
      total: () => undefined,
      log: (line) => io.err(line),
      done: () => undefined,
    };
  }
  const started = Date.now();
  let count = 0;
  let size = total ?? 0;
  const multi = new MultiBar({
    stream,
    format: (options, params, payload: { label: string }) => {
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      const rate = (params.value / seconds).toFixed(1);
      const template = size > 0 ? KNOWN : UNKNOWN;
      const filled = Math.round(params.progress * (options.barsize ?? BAR_SIZE));
      const bar = `${'█'.repeat(filled)}${'░'.repeat(Math.max(0, (options.barsize ?? BAR_SIZE) - filled))}`;
      const eta = params.eta > 0 && Number.isFinite(params.eta) ? `${params.eta}s` : params.progress >= 1 ? '0s' : '…';
      return template
        .replace('{label}', payload.label)
        .replace('{bar}', bar)
        .replace('{value}', String(params.value))
        .replace('{total}', String(params.total))
        .replace('{percentage}', String(Math.floor(params.progress * 100)))
        .replace('{rate}', rate)
        .replace('{eta_formatted}', eta);
    },
    barsize: BAR_SIZE,
    hideCursor: true,
    clearOnComplete: false,
    fps: 10,
    etaBuffer: 50,
  });
  const bar: SingleBar = multi.create(size, 0, { label });
  return {
    tick(by = 1) {
      count += by;
      bar.update(count);
    },
    update(value) {
      count = value;
      bar.update(count);
    },
    total(value) {
      size = Math.max(size, value);
      bar.setTotal(size);
    },
    log(line) {
      multi.log(`${line}\n`);
    },
    done() {
      bar.update(count);
      // Lines logged since the last redraw are printed by a redraw; stop() alone would drop them.
      multi.update();
      multi.stop();
    },
  };
}
