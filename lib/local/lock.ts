/**
 * One `npm start` per data directory. dynalite keeps its LevelDB store there, and a second process
 * opening it crashes deep inside LevelDB ("Database is closed"). The lock file says who holds the
 * directory; one left behind by a crashed run (its pid no longer a running node process) is taken over.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from './startup-error.js';

interface LockContents {
  pid: number;
  /** The port the holder listens on; null until it has bound it. */
  port: number | null;
  token: string;
}

export interface DataDirLock {
  /** Records the bound port, for the message a second start prints. */
  setPort(port: number): void;
  /** Removes the lock if it is still ours. */
  release(): void;
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'ratchet.lock');
}

export function acquireLock(dataDir: string): DataDirLock {
  const file = lockPath(dataDir);
  const mine: LockContents = { pid: process.pid, port: null, token: randomUUID() };
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new StartupError(`RATCHET_DATA_DIR: cannot create ${dataDir} (${code(error)})`);
  }
  // Two rounds: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      return {
        setPort(port) {
          if (readLock(file)?.token === mine.token) writeFileSync(file, JSON.stringify({ ...mine, port }));
        },
        release() {
          if (readLock(file)?.token === mine.token) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if (code(error) !== 'EEXIST') throw new StartupError(`RATCHET_DATA_DIR: cannot write ${file} (${code(error)})`);
    }
    const holder = readLock(file);
    if (holder && isRunning(holder.pid)) {
      throw new StartupError(`another Ratchet is running (pid ${holder.pid}, port ${holder.port ?? 'not yet bound'})`);
    }
    rmSync(file, { force: true });
  }
  throw new StartupError(`another Ratchet is starting on ${dataDir}; try again`);
}

function readLock(file: string): LockContents | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockContents>;
    return typeof parsed.pid === 'number' && typeof parsed.token === 'string' ? (parsed as LockContents) : undefined;
  } catch {
    return undefined; // Missing or torn: nobody holds it.
  }
}

/** Alive, and (where /proc tells) still a node process: a pid reused by something else is stale. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (code(error) !== 'EPERM') return false;
  }
  try {
    return /node|tsx/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true; // No /proc (macOS): trust the signal check.
  }
}

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? String(error);
}
