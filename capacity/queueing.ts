/**
 * Fluid queueing for the capacity model: arrivals at a piecewise-constant rate into a queue served at
 * a fixed rate (batch × concurrency ÷ batch duration). While arrivals outpace the service the backlog
 * grows at the difference; once they fall below it, the backlog drains at the difference, then the
 * output follows the arrivals. Queues in series: one queue's output (times a fan-out) is the next one's
 * input. Pure arithmetic, no clock: every answer is exact for the piecewise-constant input.
 */

/** A stretch of constant rate, per second. */
export interface Segment {
  seconds: number;
  rate: number;
}

export interface QueueRun {
  /** Service rate, per second. */
  serviceRate: number;
  /** Highest arrival rate over the run. */
  peakArrival: number;
  /** Largest backlog, and when (seconds from the start). */
  peakBacklog: number;
  peakAt: number;
  /** From the peak until the queue is empty again, seconds (0 when it never backs up). */
  drainSeconds: number;
  /** When the queue is empty for good, seconds from the start (arrivals may continue below the service rate). */
  emptyAt: number;
  /** What leaves the queue over time: the next stage's input. */
  output: Segment[];
  /** Backlog at every change of slope, for plots: [seconds, backlog]. */
  backlog: Array<[number, number]>;
}

/** Runs `arrivals` through one queue served at `serviceRate`; after the last segment nothing arrives. */
export function runQueue(arrivals: readonly Segment[], serviceRate: number): QueueRun {
  if (!(serviceRate > 0)) throw new Error(`service rate must be above 0, got ${serviceRate}`);
  let t = 0;
  let backlog = 0;
  let peakBacklog = 0;
  let peakAt = 0;
  const output: Segment[] = [];
  const points: Array<[number, number]> = [[0, 0]];
  const emit = (seconds: number, rate: number) => {
    if (seconds <= 0) return;
    const last = output.at(-1);
    if (last && last.rate === rate) last.seconds += seconds;
    else output.push({ seconds, rate });
  };
  const mark = () => {
    if (backlog > peakBacklog) {
      peakBacklog = backlog;
      peakAt = t;
    }
    const last = points.at(-1)!;
    if (last[0] !== t || last[1] !== backlog) points.push([t, backlog]);
  };
  for (const { seconds, rate } of arrivals) {
    if (seconds <= 0) continue;
    if (rate >= serviceRate) {
      // Backs up (or holds) for the whole segment; the queue serves at its rate.
      if (backlog === 0 && rate === serviceRate) emit(seconds, rate);
      else emit(seconds, serviceRate);
      backlog += (rate - serviceRate) * seconds;
      t += seconds;
      mark();
      continue;
    }
    // Drains at the difference until empty, then passes arrivals straight through.
    const toEmpty = backlog / (serviceRate - rate);
    if (toEmpty >= seconds) {
      emit(seconds, serviceRate);
      backlog -= (serviceRate - rate) * seconds;
      t += seconds;
      mark();
      continue;
    }
    if (toEmpty > 0) {
      emit(toEmpty, serviceRate);
      t += toEmpty;
      backlog = 0;
      mark();
    }
    emit(seconds - toEmpty, rate);
    t += seconds - toEmpty;
    mark();
  }
  if (backlog > 0) {
    const rest = backlog / serviceRate;
    emit(rest, serviceRate);
    t += rest;
    backlog = 0;
    mark();
  }
  return {
    serviceRate,
    peakArrival: Math.max(0, ...arrivals.map((a) => a.rate)),
    peakBacklog,
    peakAt,
    drainSeconds: peakBacklog > 0 ? emptyAfter(points, peakAt) - peakAt : 0,
    emptyAt: lastEmptied(points),
    output,
    backlog: points,
  };
}

/** When the backlog last came down to 0 (0 when it never rose). */
function lastEmptied(points: ReadonlyArray<[number, number]>): number {
  for (let i = points.length - 1; i > 0; i--) if (points[i]![1] === 0 && points[i - 1]![1] > 0) return points[i]![0];
  return 0;
}

/** The first time at or after `from` that the backlog is 0. */
function emptyAfter(points: ReadonlyArray<[number, number]>, from: number): number {
  return points.find(([t, b]) => t >= from && b === 0)?.[0] ?? Number.POSITIVE_INFINITY;
}

/** Scales every rate (one input event becomes `factor` messages downstream). */
export function scale(segments: readonly Segment[], factor: number): Segment[] {
  return segments.map((s) => ({ seconds: s.seconds, rate: s.rate * factor }));
}

/** Adds two inputs arriving at the same queue, segment by segment over time. */
export function merge(a: readonly Segment[], b: readonly Segment[]): Segment[] {
  const cuts = new Set<number>([0]);
  for (const list of [a, b]) {
    let t = 0;
    for (const s of list) cuts.add((t += s.seconds));
  }
  const sorted = [...cuts].sort((x, y) => x - y);
  const out: Segment[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const mid = (sorted[i - 1]! + sorted[i]!) / 2;
    const rate = rateAt(a, mid) + rateAt(b, mid);
    const seconds = sorted[i]! - sorted[i - 1]!;
    const last = out.at(-1);
    if (last && last.rate === rate) last.seconds += seconds;
    else out.push({ seconds, rate });
  }
  return out;
}

/** The rate in force at time `t` (0 outside the segments). */
export function rateAt(segments: readonly Segment[], t: number): number {
  let start = 0;
  for (const s of segments) {
    if (t >= start && t < start + s.seconds) return s.rate;
    start += s.seconds;
  }
  return 0;
}

/** Backlog at time `t` from a run's backlog points (linear between them). */
export function backlogAt(run: Pick<QueueRun, 'backlog'>, t: number): number {
  const points = run.backlog;
  for (let i = 1; i < points.length; i++) {
    const [t0, b0] = points[i - 1]!;
    const [t1, b1] = points[i]!;
    if (t <= t1) return t1 === t0 ? b1 : b0 + ((b1 - b0) * (t - t0)) / (t1 - t0);
  }
  return 0;
}

/** Little's law: busy copies = arrivals served per second × seconds per message. */
export function busyCopies(ratePerSecond: number, secondsPerItem: number): number {
  return ratePerSecond * secondsPerItem;
}
