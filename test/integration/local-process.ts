/**
 * Runs `bin/local.ts` (what `npm start` runs) as a child process with its own data dir, for the tests
 * that need the real entry point: exit codes, one-line failures, sockets of the process itself.
 * `node --import tsx` keeps the runtime in the child itself (the tsx CLI would add a second process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface LocalProcess {
  child: ChildProcess;
  dataDir: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the `ready:` line, or rejects with the output if the process exits first. */
  ready(timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (signals count as -1). */
  exited(timeoutMs?: number): Promise<number>;
  stop(): Promise<number>;
  /** Removes the data dir if this helper created it. */
  cleanup(): void;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'ratchet-local-'));
}

export function spawnLocal(options: { env?: Record<string, string>; dataDir?: string } = {}): LocalProcess {
  const dataDir = options.dataDir ?? tempDataDir();
  const ownsDir = options.dataDir === undefined;
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: '0',
    ...options.env,
    RATCHET_DATA_DIR: dataDir,
  };
  // Provider variables from the developer's shell must not leak into these tests.
  for (const { credentialsVariable } of PROVIDERS)
    if (!options.env?.[credentialsVariable]) delete env[credentialsVariable];
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number>((resolveExit) => child.once('exit', (code) => resolveExit(code ?? -1)));

  const within = <T>(promise: Promise<T>, ms: number, what: string) =>
    Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what} timed out\nstdout:${out}\nstderr:${err}`)), ms).unref(),
      ),
    ]);

  return {
    child,
    dataDir,
    stdout: () => out,
    stderr: () => err,
    ready(timeoutMs = 30_000) {
      const line = new Promise<string>((resolveReady, reject) => {
        const check = () => {
          const match = /^ready: .*$/m.exec(out);
          if (match) resolveReady(match[0]);
        };
        child.stdout!.on('data', check);
        check();
        void exit.then((code) => reject(new Error(`exited with ${code} before ready\nstdout:${out}\nstderr:${err}`)));
      });
      return within(line, timeoutMs, 'ready');
    },
    exited(timeoutMs = 30_000) {
      return within(exit, timeoutMs, 'exit');
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return within(exit, 15_000, 'stop');
    },
    cleanup() {
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
