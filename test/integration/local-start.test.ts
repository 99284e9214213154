/**
 * `npm start` fails clearly. Each case runs the real entry point (bin/local.ts) in a
 * child process and checks the exit code and the exact line an operator would read.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockPath } from '../../lib/local/lock.js';
import { readState } from '../../lib/local/state.js';
import { type LocalProcess, spawnLocal } from './local-process.js';

/** Runs a start that must fail, and returns its stderr lines. */
async function failedStart(
  env: Record<string, string>,
  dataDir?: string,
): Promise<{ code: number; lines: string[]; stdout: string }> {
  const local = spawnLocal({ env, dataDir });
  try {
    const code = await local.exited();
    return { code, lines: local.stderr().split('\n').filter(Boolean), stdout: local.stdout() };
  } finally {
    local.cleanup();
  }
}

/** One line per problem, each naming its variable, and never a stack trace. */
function expectNoTrace(lines: string[]): void {
  expect(lines.filter((line) => /^\s+at /.test(line) || /Error:/.test(line))).toEqual([]);
}

describe('a second npm start on the same data directory', () => {
  let first: LocalProcess;
  beforeAll(async () => {
    first = spawnLocal();
    await first.ready();
  });
  afterAll(async () => {
    await first?.stop();
    first?.cleanup();
  });

  it('exits 1 naming the running one, which keeps running', async () => {
    const { port, sesQueueUrl, sesDeadLetterUrl } = readState(first.dataDir)!;
    // The SES feed and its dead-letter queue, for `send --via queue` and `ses redrive`.
    expect(sesQueueUrl).toMatch(/^http:\/\/\S*127\.0\.0\.1:\d+\/.*ratchet-ses-notifications$/);
    expect(sesDeadLetterUrl).toMatch(/ratchet-ses-dead-letters$/);
    expect(first.stdout()).toContain(
      `ses feed: ${sesQueueUrl} (npx ratchet-send ses <kind> <email> --via queue); dead letters: ${sesDeadLetterUrl}`,
    );
    const second = await failedStart({}, first.dataDir);
    expect(second.code).toBe(1);
    expect(second.lines).toEqual([`npm start: another Ratchet is running (pid ${first.child.pid}, port ${port})`]);
    expect(second.stdout).not.toContain('ready:');
    // The first one still answers, and still holds its lock.
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(existsSync(lockPath(first.dataDir))).toBe(true);
  });
});

describe('bad variables and ports', () => {
  // PORT's other bad values are unit-tested (test/unit/local/startup-checks.test.ts): a spawn costs seconds.
  it('PORT=abc exits 1 with one line naming PORT', async () => {
    const result = await failedStart({ PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      'npm start: PORT must be a whole number from 0 to 65535 (0 picks a free port), got "abc"',
    ]);
  });

  it('other bad variables: one line each, naming the variable, all at once', async () => {
    const result = await failedStart({ SOFT_BOUNCE_LIMIT: '0', INBOX_TTL_DAYS: 'ninety', QUEUE_NAME: 'a b' });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      `npm start: QUEUE_NAME must be 1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dlq suffix), got "a b"`,
      'npm start: INBOX_TTL_DAYS must be a non-negative number of days, got "ninety"',
      'npm start: SOFT_BOUNCE_LIMIT must be a whole number between 1 and 20, got "0"',
    ]);
    expectNoTrace(result.lines);
  });

  describe('a busy port', () => {
    let blocker: Server;
    let port: number;
    beforeAll(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      port = (blocker.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

    it('exits 1 with one line, and leaves the data directory unlocked', async () => {
      const local = spawnLocal({ env: { PORT: String(port) } });
      try {
        expect(await local.exited()).toBe(1);
        expect(local.stderr().split('\n').filter(Boolean)).toEqual([
          `npm start: PORT ${port} is already in use by another program: set PORT to a free port (PORT=0 picks one)`,
        ]);
        expect(existsSync(lockPath(local.dataDir))).toBe(false);
      } finally {
        local.cleanup();
      }
    });
  });
});

describe('a bad variable leaves the data directory as it was', () => {
  // Every variable is checked before the lock, the demo credentials, the unsubscribe key or the store is written.
  const parent = mkdtempSync(join(tmpdir(), 'ratchet-untouched-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('not created when it did not exist: a bad setting, a sync provider without its key', async () => {
    const fresh = join(parent, 'never-created');
    const bad = await failedStart({ SOFT_BOUNCE_LIMIT: '0' }, fresh);
    expect(bad).toMatchObject({
      code: 1,
      lines: ['npm start: SOFT_BOUNCE_LIMIT must be a whole number between 1 and 20, got "0"'],
    });
    expect(existsSync(fresh)).toBe(false);
    // A rate for a provider sync does not push to limits nothing: refused, as cdk synth refuses it in context syncRates.
    const unlisted = await failedStart({ SYNC_PROVIDERS: 'ses', SYNC_RESEND_RATE: '2' }, fresh);
    expect(unlisted).toMatchObject({
      code: 1,
      lines: ['npm start: SYNC_RESEND_RATE names resend, which SYNC_PROVIDERS does not list'],
    });
    expect(existsSync(fresh)).toBe(false);
    const keyless = await failedStart({ SYNC_PROVIDERS: 'sendgrid' }, fresh);
    expect(keyless).toMatchObject({
      code: 1,
      lines: ['npm start: SYNC_PROVIDERS includes sendgrid but SENDGRID_API_KEY is not set'],
    });
    expect(existsSync(fresh)).toBe(false);
  });

  it('unchanged when it existed: nothing added, nothing rewritten', async () => {
    const dir = mkdtempSync(join(parent, 'existing-'));
    writeFileSync(join(dir, 'keep.txt'), 'as it was\n');
    const bad = await failedStart({ SYNC_QUEUE_URL: 'ratchet-sync' }, dir);
    expect(bad.code).toBe(1);
    expect(bad.lines).toEqual([expect.stringMatching(/^npm start: SYNC_QUEUE_URL must be an SQS queue URL/)]);
    expect(readdirSync(dir)).toEqual(['keep.txt']);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('as it was\n');
  });
});

describe('an SNS age limit the inbox cannot back', () => {
  it('SNS_MAX_AGE_SECONDS at the inbox TTL exits 1 with one line naming both variables', async () => {
    const result = await failedStart({ INBOX_TTL_DAYS: '10', SNS_MAX_AGE_SECONDS: '864000' });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      'npm start: SNS_MAX_AGE_SECONDS is 864000 s, at or above INBOX_TTL_DAYS (10 days = 864000 s): a replay older than its inbox row would be admitted again. Lower it, or unset it for the default (INBOX_TTL_DAYS less one day)',
    ]);
    expectNoTrace(result.lines);
  });
});

describe('malformed provider credentials', () => {
  it('fail the start before ready:, naming each variable and the reason, never the value', async () => {
    const result = await failedStart({
      GENERIC_WEBHOOK_SECRETS: 'short',
      SENDGRID_PUBLIC_KEYS: 'garbage',
      POSTMARK_BASIC_AUTH: 'no-colon-here',
      STANDARD_WEBHOOK_SECRETS: '["unterminated',
      MAILGUN_TOLERANCE_SECONDS: '5 minutes',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('ready:');
    expect(result.lines.sort()).toEqual(
      [
        'npm start: GENERIC_WEBHOOK_SECRETS entry 1 is shorter than 32 bytes',
        // A setting the provider reads is named as itself, not as the credentials variable.
        'npm start: MAILGUN_TOLERANCE_SECONDS must be a whole number of seconds between 1 and 172800, got "5 minutes"',
        'npm start: POSTMARK_BASIC_AUTH entry 1 is not user:password',
        'npm start: SENDGRID_PUBLIC_KEYS: SendGrid public key is neither base64 DER SubjectPublicKeyInfo nor a PEM public key',
        'npm start: STANDARD_WEBHOOK_SECRETS: starts with "[" but is not valid JSON (expected a JSON array of strings)',
      ].sort(),
    );
    expectNoTrace(result.lines);
    const all = result.lines.join('\n');
    for (const value of ['garbage', 'no-colon-here', 'unterminated']) expect(all).not.toContain(value);
  });
});
