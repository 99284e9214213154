/**
 * CPU time of every thread of this process, from Linux's `/proc/self/task/<tid>/stat`.
 *
 * The main-thread profile (profile.ts) sees one thread. A local run also burns CPU on the emulators'
 * worker threads and on V8's helper threads (parallel scavenges, concurrent marking, off-thread
 * compilation), and on a 2-core machine all of them share the same cores. So a run's ceiling is set by
 * their sum: no scheduling does more operations per second than cores ÷ (CPU per operation).
 *
 * Resolution is the kernel's clock tick (USER_HZ, 100 on Linux), 10 ms: fine for runs of seconds.
 * Anywhere but Linux the readings are undefined and the report says so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const TASKS = '/proc/self/task';
/** USER_HZ: /proc reports times in these ticks on every Linux architecture Node runs on. */
const TICK_US = 10_000;

/** V8's CPU profiler samples from a thread of its own: the bench's instrument, not the work measured. */
const PROFILER_THREAD = /^v8:Prof/;

/** Thread id → its name and CPU time so far (user + system), µs. */
export type ThreadTimes = ReadonlyMap<number, { name: string; us: number }>;

export function threadTimes(): ThreadTimes | undefined {
  if (!existsSync(TASKS)) return undefined;
  const times = new Map<number, { name: string; us: number }>();
  for (const tid of readdirSync(TASKS)) {
    let stat: string;
    try {
      stat = readFileSync(`${TASKS}/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14th and 15th.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times.set(Number(tid), { name, us: (Number(fields[11]) + Number(fields[12])) * TICK_US });
  }
  return times;
}

export interface CpuSplit {
  /** µs per operation on the main thread (the writer, the worker, the poller, the fakes, the SDK's client side). */
  main: number;
  /** µs per operation on threads started after `existing` was read: the local stack's emulator threads. */
  started: number;
  /** µs per operation on the other threads that were already there: V8's GC and compiler helpers, libuv's pool (where LevelDB's disk I/O runs). */
  helpers: number;
  /** µs per operation on the CPU profiler's sampling thread, left out of the total (it is the bench's, not the run's). */
  profiler: number;
  total: number;
  /** The most operations per second this machine's cores could do at that CPU cost. */
  ceilingPerSecond: number;
  cores: number;
}

/** The CPU each group of threads spent between two readings, per operation. */
export function cpuSplit(
  before: ThreadTimes | undefined,
  after: ThreadTimes | undefined,
  existing: ThreadTimes | undefined,
  operations: number,
): CpuSplit | undefined {
  if (!before || !after || !existing) return undefined;
  let main = 0;
  let started = 0;
  let helpers = 0;
  let profiler = 0;
  for (const [tid, { name, us }] of after) {
    const spent = us - (before.get(tid)?.us ?? 0);
    if (PROFILER_THREAD.test(name)) profiler += spent;
    else if (tid === process.pid) main += spent;
    else if (existing.has(tid)) helpers += spent;
    else started += spent;
  }
  const total = main + started + helpers;
  const cores = availableParallelism();
  const per = (us: number) => us / operations;
  return {
    main: per(main),
    started: per(started),
    helpers: per(helpers),
    profiler: per(profiler),
    total: per(total),
    ceilingPerSecond: total > 0 ? (cores * 1e6 * operations) / total : Number.POSITIVE_INFINITY,
    cores,
  };
}
