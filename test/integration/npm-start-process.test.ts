/**
 * The entry points as a newcomer runs them, as real processes: `npm start` stops whole on a SIGTERM or
 * SIGINT sent to the pid npm has (not the group), freeing the port and the lock with no child left;
 * every bad variable exits 1 with one line and no trace; `--help` prints usage and does nothing else
 * for `npm start`, `send`, `bench` and `cost`; `npx ratchet --version` prints only the version.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { lockPath } from '../../lib/local/lock.js';
import { BAD_VALUES } from '../support/runtime-variables.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ratchet-proc-'));
  dirs.push(dir);
  return dir;
}

/** The environment of a fresh shell: no provider variables, no PORT, a data dir of its own. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  for (const p of PROVIDERS) delete env[p.credentialsVariable];
  for (const k of [
    'PORT',
    'DYNAMODB_ENDPOINT',
    'SQS_ENDPOINT',
    'LOG_LEVEL',
    'INBOX_TTL_DAYS',
    'UNSUBSCRIBE_SECRETS',
    'npm_config_loglevel',
  ])
    delete env[k];
  return { ...env, ...extra };
}

function run(command: string, args: string[], env: Record<string, string>, timeout = 60_000) {
  return new Promise<{ code: number; out: string; err: string }>((done) => {
    execFile(command, args, { cwd: ROOT, env, timeout }, (error, out, err) =>
      done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

/** Every process below `pid`, from /proc (Linux). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone while we read.
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portAnswers = (port: number) =>
  new Promise<boolean>((answer) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      answer(true);
    });
    socket.on('error', () => answer(false));
  });

describe('npm start stops whole on a signal to the pid npm has', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: port and lock released within 10 s, no process left',
    async (signal) => {
      const dataDir = tempDir();
      const npm = spawn('npm', ['start'], {
        cwd: ROOT,
        env: cleanEnv({ PORT: '0', RATCHET_DATA_DIR: dataDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      npm.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<void>((done) => npm.once('exit', () => done()));
      const port = await new Promise<number>((ready, fail) => {
        const timer = setTimeout(() => fail(new Error(`not ready in 90 s:\n${out}`)), 90_000);
        npm.stdout!.on('data', () => {
          const match = /ready: Ratchet is listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (match) {
            clearTimeout(timer);
            ready(Number(match[1]));
          }
        });
      });
      const tree = descendants(npm.pid!);
      expect(tree.length).toBeGreaterThan(0);
      expect(await portAnswers(port)).toBe(true);
      expect(existsSync(lockPath(dataDir))).toBe(true);

      const sent = Date.now();
      process.kill(npm.pid!, signal);
      const deadline = sent + 10_000;
      while (Date.now() < deadline && ([npm.pid!, ...tree].some(alive) || (await portAnswers(port))))
        await new Promise((r) => setTimeout(r, 200));
      const left = [npm.pid!, ...tree].filter(alive);
      // Clean up whatever a failure left behind before asserting, so no orphan outlives the test.
      for (const pid of left) process.kill(pid, 'SIGKILL');
      expect(left).toEqual([]);
      expect(Date.now() - sent).toBeLessThan(10_000);
      expect(await portAnswers(port)).toBe(false);
      expect(existsSync(lockPath(dataDir))).toBe(false);
      expect(existsSync(join(dataDir, 'local.json'))).toBe(false);
      expect(out).toContain(`${signal} received, shutting down`);
      await exited;
    },
    120_000,
  );
});

describe('every bad variable: npm start exits 1 with one line naming it, no trace, nothing started', () => {
  it.concurrent.each(Object.entries(BAD_VALUES))(
    '%s=%j',
    async (variable, value) => {
      const dataDir = tempDir();
      const result = await run(
        process.execPath,
        ['--import', 'tsx', 'bin/local.ts'],
        cleanEnv({ PORT: '0', RATCHET_DATA_DIR: dataDir, [variable]: value }),
      );
      expect(result.code).toBe(1);
      const lines = result.err.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^npm start: .*${variable}`));
      expect(result.out).not.toContain('ready:');
      expect(existsSync(lockPath(dataDir))).toBe(false);
      expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
    },
    90_000,
  );
});

describe('--help prints usage and does nothing else; --version prints only the version', () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const benchmarks = join(ROOT, 'BENCHMARKS.md');

  it.each([
    [['start', '--', '--help'], 'Usage: npm start'],
    [['run', 'send', '--', '--help'], 'Usage: send [options] <provider> <kind> <email>'],
    [['run', 'bench', '--', '--help'], 'Usage: npm run bench'],
    [['run', 'cost', '--', '--help'], 'Usage: npm run cost'],
  ])(
    'npm -s %j',
    async (args, usage) => {
      const dataDir = tempDir();
      const before = statSync(benchmarks).mtimeMs;
      const started = Date.now();
      const result = await run('npm', ['-s', ...args], cleanEnv({ PORT: '0', RATCHET_DATA_DIR: dataDir }));
      expect(result.code).toBe(0);
      expect(result.out.startsWith(usage)).toBe(true);
      expect(result.out).not.toContain('ready:');
      expect(readdirSync(dataDir)).toEqual([]);
      expect(statSync(benchmarks).mtimeMs).toBe(before);
      expect(
        existsSync(join(ROOT, 'BENCHMARKS-partial.md')) &&
          statSync(join(ROOT, 'BENCHMARKS-partial.md')).mtimeMs > started,
      ).toBe(false);
    },
    90_000,
  );

  it.each([['ratchet'], ['ratchet-send']])(
    'npx %s --version',
    async (bin) => {
      const result = await run('npx', [bin, '--version'], cleanEnv({ RATCHET_DATA_DIR: tempDir() }));
      expect(result).toEqual({ code: 0, out: `${version}\n`, err: '' });
    },
    90_000,
  );

  it('npm start -- --version', async () => {
    const result = await run('npm', ['-s', 'start', '--', '--version'], cleanEnv({ RATCHET_DATA_DIR: tempDir() }));
    expect(result).toMatchObject({ code: 0, out: `${version}\n` });
  }, 90_000);
});
