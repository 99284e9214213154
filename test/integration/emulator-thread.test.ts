/**
 * The emulators run on a worker thread of their own, not on the runtime's main thread: they answer while
 * the main thread is blocked, a wide bind is still refused, stop() ends the thread (the process exits by
 * itself), and a thread that dies unexpectedly is an error, not a silently dead endpoint.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startDynamo, startOnThread, startSqs } from '../../lib/local/emulators.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs an ES module snippet under `node --import tsx` (as `npm start` does) from the repository root. */
function runNode(code: string, timeoutMs = 30_000) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** One HTTP request from another process: the answer's status, or the failure. */
function statusFromAnotherProcess(url: string): string {
  const code = `const r = await fetch(${JSON.stringify(url)}, { method: 'POST', body: '{}', signal: AbortSignal.timeout(10000) });
console.log(r.status);`;
  // spawnSync blocks this (the main) thread until the child is done: whatever answers it is not on this thread.
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return result.status === 0 ? result.stdout.trim() : `failed: ${result.stderr || result.signal}`;
}

describe('dynalite and fauxqs on their own thread', () => {
  let dynamo: Emulator;
  let sqs: Emulator;
  beforeAll(async () => {
    [dynamo, sqs] = await Promise.all([startDynamo(), startSqs()]);
  });
  afterAll(async () => {
    await Promise.all([dynamo?.stop(), sqs?.stop()]);
  });

  it('answer while the main thread is blocked', () => {
    // Unsigned requests: each emulator's own refusal, which only a live server on another thread can send.
    expect(statusFromAnotherProcess(dynamo.endpoint)).toMatch(/^4\d\d$/);
    expect(statusFromAnotherProcess(sqs.endpoint)).toMatch(/^[24]\d\d$/);
  });

  it('each run on a worker thread of its own, not the main one', async () => {
    const [a, b] = await Promise.all([startOnThread('dynalite', {}), startOnThread('fauxqs', {})]);
    try {
      expect(threadId).toBe(0);
      expect(a.threadId).toBeGreaterThan(0);
      expect(b.threadId).toBeGreaterThan(0);
      expect(a.threadId).not.toBe(b.threadId);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('the bind check across the thread', () => {
  it('refuses an emulator whose socket is not on loopback, and ends its thread', async () => {
    const deaths: Error[] = [];
    for (const kind of ['dynalite', 'fauxqs'] as const) {
      await expect(startOnThread(kind, {}, { host: '0.0.0.0', onDeath: (e) => deaths.push(e) })).rejects.toThrow(
        `${kind} bound to 0.0.0.0, not loopback: refusing to run it`,
      );
    }
    expect(deaths).toEqual([]);
  });

  it('leaves nothing running after a refusal or a stop: the process exits by itself', () => {
    const child = runNode(`
      import { startDynamo, startOnThread, startSqs } from './lib/local/emulators.ts';
      import { mkdtempSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      await startOnThread('fauxqs', {}, { host: '0.0.0.0' }).catch((e) => console.log(e.message));
      const path = join(mkdtempSync(join(tmpdir(), 'ratchet-thread-')), 'dynamodb');
      const [d, s] = await Promise.all([startDynamo({ path }), startSqs()]);
      await Promise.all([d.stop(), s.stop()]);
      console.log('stopped');
    `);
    expect(child.signal, child.stderr).toBeNull();
    expect(child.stdout).toContain('fauxqs bound to 0.0.0.0, not loopback: refusing to run it');
    expect(child.stdout).toContain('stopped');
    expect(child.status, child.stderr).toBe(0);
  });
});

describe('a thread that dies', () => {
  it('is reported with which emulator and which endpoint is gone', async () => {
    let death: (error: Error) => void = () => undefined;
    const died = new Promise<Error>((r) => (death = r));
    const dynamo = await startOnThread('dynalite', {}, { onDeath: death });
    // A message the thread does not answer is an uncaught error on it: the same path as an emulator's own.
    dynamo.thread.postMessage({ type: 'no such message' });
    const error = await died;
    expect(error.message).toBe(
      `dynalite's thread ended unexpectedly: emulator thread: unknown message "no such message"; its endpoint ${dynamo.endpoint} is gone`,
    );
    await dynamo.stop(); // already gone: resolves at once
  });

  it('fails the process by default, as an emulator crash on the main thread did', () => {
    const child = runNode(`
      import { startOnThread } from './lib/local/emulators.ts';
      const sqs = await startOnThread('fauxqs', {});
      sqs.thread.postMessage({ type: 'no such message' });
      setTimeout(() => console.log('still running'), 10_000);
    `);
    expect(child.stdout).not.toContain('still running');
    expect(child.status).not.toBe(0);
    expect(child.stderr).toContain("fauxqs's thread ended unexpectedly");
  });
});
