/**
 * The parent side of the out-of-process HTTP load client (load-worker.ts). `startLoadProcess()` forks
 * the worker under tsx; `stage()` hands it signed requests ahead of time (untimed), and `run()` has it
 * POST them at a fixed concurrency over loopback to the runtime in this process. The result carries
 * the client's own measurements (wall time, latency, client CPU) plus the CPU this process, the
 * runtime (HTTP front, handlers, emulators), spent between sending `run` and receiving the answer.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';
import type { LoadResult } from './load.js';

export interface LoadRequest {
  headers: Record<string, string>;
  body: string;
}

export type LoadWorkerRequest =
  | { type: 'stage'; id: number; batch: number; provider: string; requests: LoadRequest[] }
  | { type: 'run'; id: number; batch: number; url: string; concurrency: number };

export type LoadWorkerReply =
  | { type: 'ready'; id: 0 }
  | { type: 'staged'; id: number }
  | { type: 'done'; id: number; result: LoadResult }
  | { type: 'error'; id: number; error: string };

/** A load run driven from the client process. */
export interface RemoteLoadResult extends LoadResult {
  /** CPU time of the runtime process (this one: HTTP front, handlers, emulators) during the run, ms. */
  cpuMs: number;
  /** CPU time of the client process during the run, ms. */
  clientCpuMs: number;
}

export interface StagedBatch {
  readonly batch: number;
  readonly count: number;
}

export interface LoadProcess {
  readonly pid: number;
  /** Sends the requests to the client process, which encodes them; nothing is timed. */
  stage(provider: string, requests: readonly LoadRequest[]): Promise<StagedBatch>;
  /** POSTs a staged batch to `${url}/webhooks/<provider>`, `concurrency` in flight (closed loop). */
  run(url: string, batch: StagedBatch, concurrency: number): Promise<RemoteLoadResult>;
  close(): Promise<void>;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

export async function startLoadProcess(): Promise<LoadProcess> {
  const child: ChildProcess = fork(WORKER, [], {
    // tsx's ESM loader, resolved from here so the child finds it whatever the working directory.
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  const cancelCleanup = onCleanup(() => child.kill());
  const pending = new Map<number, { resolve: (reply: LoadWorkerReply) => void; reject: (error: Error) => void }>();
  let exited: Error | undefined;
  const failAll = (error: Error) => {
    exited = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  child.on('message', (reply: LoadWorkerReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.type === 'error') p.reject(new Error(`load client: ${reply.error}`));
    else p.resolve(reply);
  });
  child.on('exit', (code, signal) => failAll(new Error(`load client exited (code ${code}, signal ${signal})`)));
  child.on('error', (error) => failAll(error));

  let nextId = 1;
  let nextBatch = 1;
  const call = (message: WithoutId<LoadWorkerRequest>): Promise<LoadWorkerReply> =>
    new Promise((resolve, reject) => {
      if (exited) return reject(exited);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...message, id }, (error) => {
        if (error) {
          pending.delete(id);
          reject(error);
        }
      });
    });

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('load client did not start')), READY_TIMEOUT_MS);
    pending.set(0, {
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
  });

  return {
    pid: child.pid!,
    async stage(provider, requests) {
      const batch = nextBatch++;
      await call({
        type: 'stage',
        batch,
        provider,
        requests: requests.map((r) => ({ headers: r.headers, body: r.body })),
      });
      return { batch, count: requests.length };
    },
    async run(url, staged, concurrency) {
      const cpuStart = process.cpuUsage();
      const reply = await call({ type: 'run', batch: staged.batch, url, concurrency });
      const cpu = process.cpuUsage(cpuStart);
      if (reply.type !== 'done') throw new Error(`load client answered ${reply.type} to run`);
      return { ...reply.result, cpuMs: (cpu.user + cpu.system) / 1000, clientCpuMs: reply.result.cpuMs };
    },
    async close() {
      if (!exited && child.connected) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.disconnect();
        await Promise.race([gone, new Promise<void>((resolve) => setTimeout(resolve, 5000).unref())]);
      }
      if (!exited) child.kill();
      cancelCleanup();
    },
  };
}

/** Runs `fn` with a fresh client process and always stops it. */
export async function withLoadProcess<T>(fn: (client: LoadProcess) => Promise<T>): Promise<T> {
  const client = await startLoadProcess();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
