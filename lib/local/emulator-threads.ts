/**
 * The main thread's side of emulator-thread.mjs: starts an emulator on a worker thread, reports the address
 * it got (emulators.ts judges it), stops it, and ends the thread when nothing runs on it; a thread that ends
 * on its own is each running emulator's death. See emulators.ts for why a thread.
 */
import { Worker } from 'node:worker_threads';

export type EmulatorKind = 'dynalite' | 'fauxqs';

export interface EmulatorOptions {
  /** dynalite only: its LevelDB store's directory. */
  path?: string;
  port?: number;
}

/** What the thread reports once an emulator listens: the address its socket really got. */
export interface Listening {
  address: string | null;
  port: number;
}

interface Slot {
  kind: EmulatorKind;
  started(listening: Listening): void;
  failed(error: Error): void;
  /** Set once the emulator runs: what to call if the thread ends without its stop(). */
  onDeath?: (error: Error) => void;
  stopped: Array<() => void>;
}

type ThreadMessage =
  | ({ type: 'started'; id: number } & Listening)
  | { type: 'failed'; id: number; message: string; code?: string }
  | { type: 'stopped'; id: number };

const THREAD_FILE = new URL('./emulator-thread.mjs', import.meta.url);

export class EmulatorThread {
  readonly worker: Worker;
  private readonly slots = new Map<number, Slot>();
  private nextId = 1;
  private failure: Error | undefined;
  private ending = false;

  constructor() {
    // execArgv: the thread's file is plain JavaScript, so it needs none of the main thread's loaders (tsx).
    this.worker = new Worker(THREAD_FILE, { execArgv: [] });
    this.worker.on('error', (error) => {
      this.failure = error;
    });
    this.worker.on('exit', (code) => this.exited(code));
    this.worker.on('message', (message: ThreadMessage) => this.received(message));
  }

  get threadId(): number {
    return this.worker.threadId;
  }

  /** Starts one emulator; resolves with its id and where it listens (not yet judged: the caller does). */
  start(kind: EmulatorKind, host: string, options: EmulatorOptions): Promise<{ id: number } & Listening> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.slots.set(id, {
        kind,
        started: (listening) => resolve({ id, ...listening }),
        failed: reject,
        stopped: [],
      });
      this.worker.postMessage({ type: 'start', id, kind, host, options });
    });
  }

  /** From here on, the thread ending without stop(id) is this emulator's death. */
  watch(id: number, onDeath: (error: Error) => void): void {
    const slot = this.slots.get(id);
    if (slot) slot.onDeath = onDeath;
  }

  /** Closes the emulator's server (its connections, and dynalite's store); the last one ends the thread. */
  stop(id: number): Promise<void> {
    const slot = this.slots.get(id);
    if (!slot) return Promise.resolve();
    return new Promise((resolve) => {
      slot.onDeath = undefined;
      slot.stopped.push(resolve);
      if (slot.stopped.length === 1) this.worker.postMessage({ type: 'stop', id });
    });
  }

  private received(message: ThreadMessage): void {
    const slot = this.slots.get(message.id);
    if (!slot) return;
    if (message.type === 'started') {
      slot.started(message);
      return;
    }
    this.slots.delete(message.id);
    const ended = this.endIfIdle();
    if (message.type === 'failed')
      slot.failed(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
    // A stop resolves once the thread is gone too: nothing of it outlives the caller's await.
    else
      void ended.then(() => {
        for (const resolve of slot.stopped) resolve();
      });
  }

  private endIfIdle(): Promise<unknown> {
    if (this.slots.size > 0 || this.ending) return Promise.resolve();
    this.ending = true;
    return this.worker.terminate();
  }

  private exited(code: number): void {
    const ending = this.ending;
    this.ending = true;
    const cause = this.failure ? `: ${this.failure.message}` : ` (exit code ${code})`;
    for (const [id, slot] of this.slots) {
      this.slots.delete(id);
      for (const resolve of slot.stopped) resolve();
      if (slot.stopped.length > 0 || ending) continue;
      if (slot.onDeath)
        slot.onDeath(new Error(`${slot.kind}'s thread ended unexpectedly${cause}`, { cause: this.failure }));
      else slot.failed(new Error(`${slot.kind}'s thread ended before it listened${cause}`, { cause: this.failure }));
    }
  }
}
