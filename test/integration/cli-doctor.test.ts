/** `ratchet doctor` against the local stack: a line per check with its fix, exit 1 on any fail. */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ratchet, startTestStack, type TestStack } from './harness.js';

describe('ratchet doctor', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  const run = (extra: Record<string, string>, ...argv: string[]) => ratchet(stack.cliEnv(extra), ...argv);

  it('passes on a healthy local stack, skipping what has no local equivalent', async () => {
    const result = await run({}, 'doctor', '--json');
    expect(JSON.parse(result.out).filter((c: { status: string }) => c.status === 'fail')).toEqual([]);
    expect(result.code).toBe(0);
    const checks = JSON.parse(result.out) as Array<{ check: string; status: string }>;
    const status = Object.fromEntries(checks.map((c) => [c.check, c.status]));
    expect(status).toMatchObject({
      target: 'pass',
      tables: 'pass',
      'inbox TTL': 'skip',
      // The local stack runs on generated demo credentials: fine to try, said out loud.
      'credentials ses': 'warn',
      'credentials sendgrid': 'warn',
      'credentials generic': 'warn',
      queue: 'pass',
      'dead-letter queue': 'pass',
      'SES dead-letter queue': 'pass',
      'queue age': 'pass',
      'dead-letter queue age': 'pass',
      'SES dead-letter queue age': 'pass',
      'SNS subscriptions': 'skip',
    });
    expect(checks.find((c) => c.check === 'queue age')).toMatchObject({
      detail: 'no messages (alarm at 30 min)',
      thresholdSeconds: 1800,
    });
    expect(checks.some((c) => c.status === 'fail')).toBe(false);
  });

  it('fails with the fix when a dead-letter queue holds messages or a credential does not parse', async () => {
    await stack.clients.sqs.send(new SendMessageCommand({ QueueUrl: stack.queues.deadLetterUrl, MessageBody: '{}' }));
    const result = await run({ GENERIC_WEBHOOK_SECRETS: 'short' }, 'doctor');
    expect(result.code).toBe(1);
    const lines = result.out.split('\n');
    expect(lines).toContain(
      'FAIL  dead-letter queue: 1 events the consumer could not apply (fix: `ratchet dlq list`, fix the cause, then `ratchet dlq redrive`)',
    );
    expect(lines.find((l) => l.startsWith('FAIL  credentials generic: GENERIC_WEBHOOK_SECRETS: '))).toMatch(
      /\(fix: correct GENERIC_WEBHOOK_SECRETS\)$/,
    );
    expect(lines.find((l) => l.includes('credentials sendgrid'))).toBe(
      "WARN  credentials sendgrid: generated demo credentials (SENDGRID_PUBLIC_KEYS unset): fine for trying Ratchet, not for a real provider (fix: set SENDGRID_PUBLIC_KEYS to the provider's own)",
    );
    const configured = JSON.parse(
      (await run({ GENERIC_WEBHOOK_SECRETS: 'x'.repeat(40) }, 'doctor', '--json')).out,
    ) as Array<{ check: string; status: string }>;
    expect(configured.find((c) => c.check === 'credentials generic')).toMatchObject({
      status: 'pass',
      detail: '1 credential(s) parse',
    });
    // Measured from fauxqs's send times, without receiving it: young, so a pass.
    expect(lines.find((l) => l.startsWith('PASS  dead-letter queue age: '))).toMatch(
      /^PASS {2}dead-letter queue age: oldest message \d+ s old \(alarm at 30 min\)$/,
    );
  });

  it('a sync queue URL that is no queue URL is a failed check, worded as the CLI, npm start and the worker word it', async () => {
    const expected = (name: string, value: string) =>
      `${name} must be an SQS queue URL: http(s)://host/account/queue-name, got ${JSON.stringify(value)}`;
    const result = await run({ SYNC_QUEUE_URL: 'ratchet-sync' }, 'doctor');
    expect(result.code).toBe(1);
    expect(result.out.split('\n')).toContain(
      `FAIL  sync settings: ${expected('SYNC_QUEUE_URL', 'ratchet-sync')} (fix: set SYNC_QUEUE_URL to the stack output SyncQueueUrl, or unset it (the queue is then found by name))`,
    );
    const json = await run({ SYNC_PROVIDERS: 'ses', SYNC_DEAD_LETTER_QUEUE_URL: 'sqs/dlq' }, 'doctor', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).find((c: { check: string }) => c.check === 'sync settings')).toMatchObject({
      status: 'fail',
      detail: expected('SYNC_DEAD_LETTER_QUEUE_URL', 'sqs/dlq'),
    });
    // Well formed, sync on: a pass; sync off and nothing set: a skip, never a fail.
    const good = `${stack.config.sqsEndpoint}/000000000000/ratchet-sync`;
    const ok = JSON.parse((await run({ SYNC_PROVIDERS: 'ses', SYNC_QUEUE_URL: good }, 'doctor', '--json')).out);
    expect(ok.find((c: { check: string }) => c.check === 'sync settings')).toMatchObject({ status: 'pass' });
    const off = JSON.parse((await run({}, 'doctor', '--json')).out);
    expect(off.find((c: { check: string }) => c.check === 'sync settings')).toMatchObject({
      status: 'skip',
      detail: expect.stringMatching(/^sync is off: no provider is configured/),
    });
    // Any other sync setting the runtime refuses fails the same check, in the runtime's words.
    const rate = JSON.parse((await run({ SYNC_PROVIDERS: 'ses', SYNC_SES_RATE: '0' }, 'doctor', '--json')).out);
    expect(rate.find((c: { check: string }) => c.check === 'sync settings')).toMatchObject({
      status: 'fail',
      detail: 'SYNC_SES_RATE must be calls per second, more than 0 and at most 1000, got "0"',
      fix: 'correct the sync variable named (docs/configuration.md)',
    });
    // A limit for a provider SYNC_PROVIDERS does not list: npm start refuses it, so doctor fails it, sync on or off.
    const unlistedEnvs: Record<string, string>[] = [
      { SYNC_PROVIDERS: 'ses', SYNC_RESEND_RATE: '2' },
      { SYNC_RESEND_RATE: '2' },
    ];
    for (const env of unlistedEnvs) {
      const unlisted = JSON.parse((await run(env, 'doctor', '--json')).out);
      expect(unlisted.find((c: { check: string }) => c.check === 'sync settings')).toMatchObject({
        status: 'fail',
        detail: 'SYNC_RESEND_RATE names resend, which SYNC_PROVIDERS does not list',
        fix: 'add the provider to SYNC_PROVIDERS, or unset the variable (npm start refuses it)',
      });
    }
  });

  it('no stack and no credentials: the unreachable target is one FAIL with its fix, and what needs it is skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratchet-doctor-none-'));
    // No credentials anywhere (no ~/.aws, no instance metadata); any request would go to a closed loopback port.
    const result = await ratchet(
      {
        RATCHET_DATA_DIR: dir,
        HOME: dir,
        AWS_REGION: 'eu-west-1',
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
        AWS_CONFIG_FILE: join(dir, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
      },
      'doctor',
    );
    rmSync(dir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    const lines = result.out.split('\n');
    const failures = lines.filter((l) => l.startsWith('FAIL'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^FAIL {2}tables: .*\(fix: start the local stack with `npm start`, set DYNAMODB_ENDPOINT, or configure AWS credentials/,
    );
    for (const check of [
      'inbox TTL',
      'suppression table protection',
      'queues',
      'SES subscription',
      'alarm subscribers',
    ]) {
      expect(lines).toContain(
        `SKIP  ${check}: skipped: AWS eu-west-1 (no local stack: ${join(dir, 'local.json')} not found) did not answer (see tables)`,
      );
    }
  }, 60_000);

  it('a stale local.json is one failing check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratchet-doctor-'));
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({ pid: 2 ** 22 + 12345, url: 'http://localhost:1', region: 'us-east-1' }),
    );
    const result = await ratchet({ RATCHET_DATA_DIR: dir }, 'doctor');
    rmSync(dir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.out.split('\n')[0]).toMatch(
      /^FAIL {2}target: the local stack is not running .*\(fix: start it with `npm start`\)$/,
    );
  });
});
