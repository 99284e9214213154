/**
 * A CPU profile of one piece of a run, summarized by who spent the time: our code, the AWS SDK
 * clients, the DynamoDB and SQS emulators, Node core, the benchmark client. Each sample's time goes to
 * the innermost frame on its stack that is not Node core, so `crypto.verify` or `zlib.gzipSync` count
 * for the code that called them, and only what Node does on its own (sockets, HTTP parsing, timers)
 * stays "Node core". Used to say where the time goes when a target is missed.
 */

import type { Profiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import type { Table } from './types.js';

export interface ProfileShare {
  category: string;
  percent: number;
  /** Main-thread time attributed to the category, µs (sum of its samples' intervals). */
  us: number;
}

const CATEGORIES: ReadonlyArray<[string, RegExp]> = [
  [
    'AWS SDK clients (@aws-sdk, @smithy)',
    /node_modules\/(@aws-sdk|@smithy|@aws-crypto|@aws|fast-xml-parser|strnum|tslib|uuid|bowser)\//,
  ],
  [
    'DynamoDB emulator (dynalite + LevelDB)',
    /node_modules\/(dynalite|[a-z-]*level[a-z-]*|abstract-level|memory-level|classic-level|lazy|big\.js|buffer-crc32|functional-red-black-tree|module-error|catering|queue-microtask|maybe-combine-errors|once|async|lock)\//,
  ],
  [
    'SQS emulator (fauxqs + fastify)',
    /node_modules\/(fauxqs|fastify|@fastify\/[^/]+|avvio|find-my-way|light-my-request|pino[a-z-]*|fast-json-stringify|ajv[a-z-]*|fast-[a-z-]+|toad-cache|rfdc|secure-json-parse|abstract-logging|process-warning|content-type|fast-querystring|sonic-boom|thread-stream|real-require|on-exit-leak-free|safe-stable-stringify|json-schema-ref-resolver|fast-uri|ret|safe-regex2|cookie|set-cookie-parser|semver|@lukeed\/ms)\//,
  ],
  ['Ratchet: edge/consumer code (lambdas/)', /\/lambdas\//],
  ['Ratchet: local runtime (lib/local: HTTP front, poller)', /\/lib\/local\//],
  ['benchmark client (bench/, lib/demo)', /\/(bench|lib\/demo)\//],
  ['provider fakes (test/fakes)', /\/test\/fakes\//],
  ['other dependencies', /node_modules\//],
];

const NODE_CORE = 'Node core (sockets, HTTP parsing, streams, timers)';
const RUNTIME = 'V8 (GC, native "(program)")';
/** The main thread waiting in the event loop: not CPU, but it shows how saturated the thread was. */
export const IDLE = 'idle (event loop waiting for I/O)';
/** Frames of the inspector session itself (`session.post('Profiler.stop')` and the like). */
const PROFILER_OWN = /^node:inspector/;

function categoryOf(url: string): string | undefined {
  if (url === '' || url.startsWith('node:')) return undefined;
  for (const [name, pattern] of CATEGORIES) if (pattern.test(url)) return name;
  return 'other';
}

/** `fn` profiled when `profile` is set, else run bare: a rate quoted from a run must not carry the profiler's cost. */
export async function profiledIf<T>(
  profile: boolean | undefined,
  fn: () => Promise<T>,
): Promise<{ value: T; shares?: ProfileShare[] }> {
  return profile ? profileShares(fn) : { value: await fn() };
}

/** Profiles `fn` (sampling every 200 µs) and returns the shares of main-thread samples per category. */
export async function profileShares<T>(fn: () => Promise<T>): Promise<{ value: T; shares: ProfileShare[] }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    let value: T;
    try {
      value = await fn();
    } catch (error) {
      await session.post('Profiler.stop');
      throw error;
    }
    const { profile } = await session.post('Profiler.stop');
    return { value, shares: summarize(profile) };
  } finally {
    session.disconnect();
  }
}

function summarize(profile: Profiler.Profile): ProfileShare[] {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, string>();
  const categorize = (id: number): string => {
    const cached = memo.get(id);
    if (cached) return cached;
    const node = nodes.get(id)!;
    const name = node.callFrame.functionName;
    const up = parent.get(id);
    let result = categoryOf(node.callFrame.url);
    if (result === undefined) {
      if (name === '(idle)') result = IDLE;
      else if (name === '(garbage collector)' || name === '(program)') result = RUNTIME;
      else if (up === undefined || name === '(root)') result = NODE_CORE;
      else result = categorize(up);
    }
    memo.set(id, result);
    return result;
  };
  // The profiler's own stop (collecting and serializing the profile: a sample inside
  // `session.post('Profiler.stop')` that lasts ~150 ms) is not part of what was profiled.
  const ownMemo = new Map<number, boolean>();
  const isProfilerOwn = (id: number): boolean => {
    const cached = ownMemo.get(id);
    if (cached !== undefined) return cached;
    const up = parent.get(id);
    const result = PROFILER_OWN.test(nodes.get(id)!.callFrame.url) || (up !== undefined && isProfilerOwn(up));
    ownMemo.set(id, result);
    return result;
  };
  const totals = new Map<string, number>();
  let all = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => {
    const dt = deltas[i] ?? 0;
    if (isProfilerOwn(id)) return;
    const category = categorize(id);
    totals.set(category, (totals.get(category) ?? 0) + dt);
    all += dt;
  });
  return [...totals.entries()]
    .map(([category, us]) => ({ category, percent: (100 * us) / all, us }))
    .sort((a, b) => b.percent - a.percent);
}

/** The shares as a report table (categories under 0.5% folded into one row). */
export function profileTable(caption: string, shares: readonly ProfileShare[]): Table {
  const shown = shares.filter((s) => s.percent >= 0.5);
  const rest = shares.filter((s) => s.percent < 0.5).reduce((n, s) => n + s.percent, 0);
  const rows = shown.map((s) => [s.category, `${s.percent.toFixed(1)}%`]);
  if (rest >= 0.05) rows.push(['(everything under 0.5%)', `${rest.toFixed(1)}%`]);
  return { caption, columns: ['where the main thread went', 'share of samples'], rows };
}

export interface ProfiledRun {
  label: string;
  shares: readonly ProfileShare[];
  /** Operations the profiled run completed, to express main-thread time per operation. */
  count: number;
}

/**
 * Several profiled runs side by side as main-thread µs per operation per category (idle last, and a
 * "busy" total without it), so the difference between two paths can be read category by category.
 */
export function profileComparisonTable(caption: string, runs: readonly ProfiledRun[]): Table {
  const perOp = (run: ProfiledRun, category: string) =>
    (run.shares.find((s) => s.category === category)?.us ?? 0) / run.count;
  const busy = (run: ProfiledRun) =>
    run.shares.filter((s) => s.category !== IDLE).reduce((n, s) => n + s.us, 0) / run.count;
  const order = new Map<string, number>();
  for (const run of runs)
    for (const s of run.shares)
      if (s.category !== IDLE) order.set(s.category, Math.max(order.get(s.category) ?? 0, perOp(run, s.category)));
  const categories = [...order.entries()].sort((a, b) => b[1] - a[1]).map(([c]) => c);
  const us = (value: number) =>
    value >= 100 ? Math.round(value).toLocaleString('en-US') : Number(value.toPrecision(2)).toString();
  const rows = categories.map((category) => [category, ...runs.map((run) => us(perOp(run, category)))]);
  rows.push(['**busy main thread, total**', ...runs.map((run) => `**${us(busy(run))}**`)]);
  rows.push([IDLE, ...runs.map((run) => us(perOp(run, IDLE)))]);
  return { caption, columns: ['where the main thread went (µs per request)', ...runs.map((r) => r.label)], rows };
}
