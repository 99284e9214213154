/**
 * The CLIs fail clearly: help exits 0 at every level, usage errors exit 2 with one line, an
 * unreachable target is named with what to do, and a closed pipe ends quietly. Spawned as real
 * processes where the process itself matters (exit codes, EPIPE, the pid check).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ratchetCommand } from '../../lib/cli/ratchet.js';
import { sendCommand } from '../../lib/cli/send.js';
import { startTestStack, type TestStack } from './harness.js';

const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

function cli(script: 'ratchet' | 'send', args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      TSX,
      [`bin/${script}.ts`, ...args],
      {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', RATCHET_DATA_DIR: emptyDir, ...env },
        timeout: 60_000,
      },
      (error, out, err) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

function inProcess(run: typeof ratchetCommand | typeof sendCommand, argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), progressTty: false };
  return run(argv, { RATCHET_DATA_DIR: emptyDir, ...env }, io).then((code) => ({
    code,
    out: out.join('\n'),
    err: err.join('\n'),
  }));
}

const emptyDir = mkdtempSync(join(tmpdir(), 'ratchet-cli-'));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

describe('help exits 0 at every level', () => {
  it('as a process: --help and help', async () => {
    for (const args of [['--help'], ['help']]) {
      const result = await cli('ratchet', args);
      expect(result.code).toBe(0);
      expect(result.out).toContain('Usage: ratchet');
      expect(result.out).toContain('suppressions');
    }
    const send = await cli('send', ['--help']);
    expect(send.code).toBe(0);
    expect(send.out).toContain('Usage: send [options] <provider> <kind> <email>');
  }, 60_000);

  it.each([
    [['suppressions', '--help'], 'Usage: ratchet suppressions'],
    [['suppressions', 'help'], 'Usage: ratchet suppressions'],
    [['help', 'inbox'], 'Usage: ratchet inbox'],
    [['suppressions', 'help', 'list'], 'Usage: ratchet suppressions list'],
    [['suppressions', 'list', '--help'], '--status <status>'],
    [['inbox', 'replay', '--help'], 'Usage: ratchet inbox replay'],
  ])('ratchet %j', async (argv, expected) => {
    const result = await inProcess(ratchetCommand, argv);
    expect(result.code).toBe(0);
    expect(result.out).toContain(expected);
  });
});

describe('usage errors exit 2 with a one-line reason', () => {
  it.each([
    [
      ['suppressions', 'list', '--status', 'bogus'],
      "error: option '--status <status>' argument 'bogus' is invalid. Allowed choices are suppressed, active.",
    ],
    [['suppressions', 'list', '--bogus'], "error: unknown option '--bogus'"],
    [['suppressions', 'get'], "error: missing required argument 'email'"],
    [
      ['suppressions', 'get', 'a@example.com', 'b@example.com'],
      "error: too many arguments for 'get'. Expected 1 argument but got 2.",
    ],
    [['inbox', 'get', 'ses'], "error: missing required argument 'eventId'"],
    [['suppressions', 'add', 'a@example.com'], "error: required option '--reason <text>' not specified"],
    [['frobnicate'], "error: unknown command 'frobnicate'"],
  ])('ratchet %j', async (argv, message) => {
    const result = await inProcess(ratchetCommand, argv);
    expect(result.code).toBe(2);
    expect(result.err).toBe(message);
    expect(result.out).toBe('');
  });

  it('ratchet with no command shows the usage on stderr and exits 2', async () => {
    const result = await inProcess(ratchetCommand, []);
    expect(result.code).toBe(2);
    expect(result.err).toContain('Usage: ratchet');
  });

  it('send names the bad argument', async () => {
    const provider = await inProcess(sendCommand, ['foo', 'bounce', 'a@example.com']);
    expect(provider.code).toBe(2);
    expect(provider.err).toMatch(
      /^error: command-argument value 'foo' is invalid for argument 'provider'\. Allowed choices are ses, /,
    );
    expect(provider.err.split('\n')).toHaveLength(1);
    const kind = await inProcess(sendCommand, ['ses', 'bouncy', 'a@example.com']);
    expect(kind.code).toBe(2);
    expect(kind.err).toMatch(/^error: command-argument value 'bouncy' is invalid for argument 'kind'/);
    const missing = await inProcess(sendCommand, ['ses', 'bounce']);
    expect(missing).toMatchObject({ code: 2, err: "error: missing required argument 'email'" });
    const extra = await inProcess(sendCommand, ['ses', 'bounce', 'a@example.com', 'more']);
    expect(extra.code).toBe(2);
    expect(extra.err).toContain('too many arguments');
  });

  it('send as a process: foo exits 2 naming provider', async () => {
    const result = await cli('send', ['foo', 'bounce', 'a@example.com']);
    expect(result.code).toBe(2);
    expect(result.err).toContain("invalid for argument 'provider'");
  }, 60_000);
});

describe('an unreachable target is named, with what to do', () => {
  it('a stale local.json whose pid is dead: "the local stack is not running"', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.on('exit', r));
    const dir = mkdtempSync(join(tmpdir(), 'ratchet-stale-'));
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({
        pid: dead.pid,
        url: 'http://localhost:3999',
        port: 3999,
        region: 'us-east-1',
        dynamoEndpoint: 'http://127.0.0.1:1',
        sqsEndpoint: 'http://127.0.0.1:1',
        inboxTable: 'i',
        suppressionTable: 's',
        queueUrl: 'q',
        deadLetterUrl: 'd',
      }),
    );
    const result = await cli('ratchet', ['suppressions', 'get', 'a@example.com'], { RATCHET_DATA_DIR: dir });
    rmSync(dir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.err.trim()).toBe(
      `error: the local stack is not running (${join(dir, 'local.json')} names pid ${dead.pid}, which has exited): start it with \`npm start\`, or set RATCHET_TARGET=aws to use AWS`,
    );
  }, 60_000);

  it('a live local.json whose endpoint does not answer names the local stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratchet-live-'));
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({
        pid: process.pid,
        url: 'http://localhost:3999',
        port: 3999,
        region: 'us-east-1',
        dynamoEndpoint: 'http://127.0.0.1:1',
        sqsEndpoint: 'http://127.0.0.1:1',
        inboxTable: 'i',
        suppressionTable: 's',
        queueUrl: 'q',
        deadLetterUrl: 'd',
      }),
    );
    const result = await inProcess(ratchetCommand, ['suppressions', 'list'], { RATCHET_DATA_DIR: dir });
    rmSync(dir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^error: suppressions list failed against the local stack at http:\/\/localhost:3999 \(pid \d+, from .*local\.json\): .*ECONNREFUSED.*To fix: check that `npm start` is still running, or restart it$/,
    );
  }, 60_000);

  it('DYNAMODB_ENDPOINT that does not answer is named', async () => {
    const result = await inProcess(ratchetCommand, ['suppressions', 'get', 'a@example.com'], {
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
    });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^error: suppressions get failed against DYNAMODB_ENDPOINT http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*To fix: start the service at DYNAMODB_ENDPOINT/,
    );
  }, 60_000);

  it('with no local stack, says it fell back to AWS and what to do', async () => {
    const result = await cli('ratchet', ['suppressions', 'get', 'a@example.com'], {
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:1',
    });
    expect(result.code).toBe(1);
    expect(result.err.trim()).toMatch(
      /^error: suppressions get failed against AWS eu-west-1 \(no local stack: .*local\.json not found\): .*To fix: start the local stack with `npm start`, set DYNAMODB_ENDPOINT, or configure AWS credentials/,
    );
  }, 60_000);

  it('send with nothing listening says the local stack is not running', async () => {
    const result = await inProcess(sendCommand, ['ses', 'bounce', 'a@example.com'], { PORT: '1' });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^error: could not reach http:\/\/localhost:1\/webhooks\/ses \(from PORT\): start the local stack with `npm start`, or set PORT \(.+\)$/,
    );
  });
});

describe('a closed pipe', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    const store = (await import('../../lambdas/adapters/dynamodb-suppressions.js')).DynamoSuppressionStore;
    const suppressions = new store(stack.clients.doc, stack.config.suppressionTable);
    const at = Date.now();
    for (let i = 0; i < 400; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          suppressions.suppress(`pipe${i + j}@example.com`, { actor: 't', reason: 'x'.repeat(150), at }),
        ),
      );
    }
  }, 60_000);
  afterAll(() => stack?.stop());

  it('`suppressions list | head -n 1` ends quietly with status 0', async () => {
    const result = await new Promise<{ status: string; err: string }>((resolve) => {
      execFile(
        'bash',
        [
          '-c',
          `"${TSX}" bin/ratchet.ts suppressions list 2>"$ERR_FILE" | head -n 1 >/dev/null; echo \${PIPESTATUS[0]}; cat "$ERR_FILE"`,
        ],
        {
          env: {
            PATH: process.env.PATH!,
            ERR_FILE: join(emptyDir, 'pipe-stderr'),
            DYNAMODB_ENDPOINT: stack.config.dynamoEndpoint!,
            SUPPRESSION_TABLE: stack.config.suppressionTable,
          },
          timeout: 60_000,
        },
        (_error, out) => {
          const [status = '', ...rest] = out.split('\n');
          resolve({ status, err: rest.join('\n').trim() });
        },
      );
    });
    expect(result.err).toBe('');
    expect(result.status).toBe('0');
  }, 60_000);
});
