/**
 * A progress bar on stderr, only when stderr is a terminal (so logs and pipes get just the summary).
 * Redraws at most every 100 ms: a 100,000-row import must not spend its time drawing.
 */
import type { Io } from './io.js';

export interface Progress {
  tick(by?: number): void;
  /** Sets the count outright (for progress reported by someone else, such as an SQS move task). */
  update(count: number): void;
  done(): void;
}

const WIDTH = 30;
const REDRAW_MS = 100;

export function progressBar(io: Io, label: string, total?: number): Progress {
  let count = 0;
  let last = 0;
  const draw = (force: boolean) => {
    if (!io.progressTty) return;
    const now = Date.now();
    if (!force && now - last < REDRAW_MS) return;
    last = now;
    const bar =
      total && total > 0
        ? `[${'#'.repeat(Math.round((Math.min(count, total) / total) * WIDTH)).padEnd(WIDTH, '.')}] ${count}/${total}`
        : `${count}`;
    process.stderr.write(`\r${label} ${bar}`);
  };
  return {
    tick(by = 1) {
      count += by;
      draw(false);
    },
    update(value) {
      count = value;
      draw(false);
    },
    done() {
      draw(true);
      if (io.progressTty) process.stderr.write('\n');
    },
  };
}
