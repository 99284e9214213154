/**
 * The embedded AWS stand-ins for `npm start` and the integration tests: dynalite (DynamoDB, optionally
 * on disk) and fauxqs (SQS), reachable from this machine only. Either is skipped when the user points us
 * at a real endpoint (DYNAMODB_ENDPOINT / SQS_ENDPOINT: LocalStack, or AWS).
 *
 * They run in this process but each on a worker thread of its own (emulator-thread.mjs): the main thread is the
 * runtime's (HTTP front, handlers, pollers), and the emulators' server side (dynalite + LevelDB, fauxqs +
 * fastify, their half of every HTTP exchange) cost it ~40% of its time per sync change. On AWS the
 * services run elsewhere; here they get the other core.
 *
 * Neither emulator authenticates anything: an SQS SendMessage from another machine would be applied by
 * the consumer as if a webhook had been verified. So every listener here is bound to loopback, and
 * checked after binding: the thread reports the address its socket got, and this side judges it.
 */
import type { AddressInfo, Server } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { type EmulatorKind, type EmulatorOptions, EmulatorThread } from './emulator-threads.js';

/** The only address an embedded service listens on. */
export const LOOPBACK_HOST = '127.0.0.1';

export interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

/** dynalite on a random loopback port; `path` keeps its LevelDB store on disk across restarts. */
export async function startDynamo(options: { path?: string; port?: number } = {}): Promise<Emulator> {
  return startOnThread('dynalite', options);
}

/** fauxqs keeps queues in memory only: the local runtime re-sends unapplied inbox rows on start for that reason. */
export async function startSqs(options: { port?: number } = {}): Promise<Emulator> {
  return startOnThread('fauxqs', options);
}

export interface ThreadedEmulator extends Emulator {
  /** The worker thread serving it (never the main thread's 0). */
  threadId: number;
  /** The thread itself: for tests, which make it fail. */
  thread: Worker;
}

export interface ThreadControl {
  /** The address the thread is told to listen on; only a test asks for another, to see it refused. */
  host?: string;
  /**
   * Called when the thread ends without stop(): an uncaught error in an emulator, or a crash. The default
   * rethrows on the main thread, so the process fails loudly (as when the emulator ran on it) instead of
   * serving requests that all fail against a dead endpoint.
   */
  onDeath?: (error: Error) => void;
}

const raise = (error: Error) =>
  process.nextTick(() => {
    throw error;
  });

/**
 * One emulator on a worker thread of its own; resolves once it listens on a checked loopback address.
 * One thread each rather than one for both: in the sync bench's end-to-end run (writer and sync worker
 * together) two threads pushed 1.5× the changes/s of one shared thread (medians of three interleaved
 * runs), as DynamoDB and SQS calls no longer queue behind each other; drain only was even.
 */
export async function startOnThread(
  kind: EmulatorKind,
  options: EmulatorOptions,
  control: ThreadControl = {},
): Promise<ThreadedEmulator> {
  const { host = LOOPBACK_HOST, onDeath = raise } = control;
  const thread = new EmulatorThread();
  const { id, address, port } = await thread.start(kind, host, options);
  if (!address || !isLoopbackAddress(address)) {
    await thread.stop(id);
    throw new Error(`${kind} bound to ${address ?? 'no address'}, not loopback: refusing to run it`);
  }
  const endpoint = `http://${LOOPBACK_HOST}:${port}`;
  thread.watch(id, (error) =>
    onDeath(new Error(`${error.message}; its endpoint ${endpoint} is gone`, { cause: error.cause })),
  );
  return { endpoint, threadId: thread.threadId, thread: thread.worker, stop: () => thread.stop(id) };
}

/** The bound port, after checking the socket really is on loopback (a dependency update must not widen it). */
export async function loopbackPort(server: Server, name: string, stop: () => Promise<void>): Promise<number> {
  const address = server.address() as AddressInfo | null;
  if (!address || !isLoopbackAddress(address.address)) {
    await stop();
    throw new Error(`${name} bound to ${address?.address ?? 'no address'}, not loopback: refusing to run it`);
  }
  return address.port;
}

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped IPv6 address). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.replace(/^::ffff:/i, '');
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/**
 * Each given endpoint (DYNAMODB_ENDPOINT, SQS_ENDPOINT), or the emulator's once started, both at once:
 * each loads on its own thread while the other does. Every one that started joins `started`, so the
 * caller's shutdown stops it, also when the other failed.
 */
export async function startedTogether(
  started: Emulator[],
  dynamo: string | Promise<Emulator>,
  sqs: string | Promise<Emulator>,
): Promise<[string, string]> {
  const settled = await Promise.allSettled([dynamo, sqs]);
  const endpoints = settled.map((result) => {
    if (result.status === 'rejected') return undefined;
    if (typeof result.value === 'string') return result.value;
    started.push(result.value);
    return result.value.endpoint;
  });
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return endpoints as [string, string];
}
