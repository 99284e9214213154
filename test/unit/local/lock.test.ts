import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, lockPath } from '../../../lib/local/lock.js';
import { StartupError } from '../../../lib/local/startup-error.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ratchet-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid;
}

describe('the data directory lock', () => {
  it('refuses a second holder while the first is alive, naming its pid and port', () => {
    const first = acquireLock(dir);
    expect(() => acquireLock(dir)).toThrow(
      new StartupError(`another Ratchet is running (pid ${process.pid}, port not yet bound)`),
    );
    first.setPort(4321);
    expect(() => acquireLock(dir)).toThrow(
      new StartupError(`another Ratchet is running (pid ${process.pid}, port 4321)`),
    );
    first.release();
    expect(existsSync(lockPath(dir))).toBe(false);
    acquireLock(dir).release();
  });

  it('takes over a lock left by a process that is gone', () => {
    const pid = deadPid();
    writeFileSync(lockPath(dir), JSON.stringify({ pid, port: 3000, token: 'crashed' }));
    const lock = acquireLock(dir);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a torn or foreign lock file', () => {
    writeFileSync(lockPath(dir), '{"pid": 12');
    acquireLock(dir).release();
  });

  it('does not remove a lock that another holder took over meanwhile', () => {
    const mine = acquireLock(dir);
    writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, port: 1, token: 'someone-else' }));
    mine.release();
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).token).toBe('someone-else');
  });

  it('names RATCHET_DATA_DIR when the directory cannot be created', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(() => acquireLock(join(file, 'sub'))).toThrow(/^RATCHET_DATA_DIR: cannot create .*a-file\/sub \(ENOTDIR\)$/);
  });
});
