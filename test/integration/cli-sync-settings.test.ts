/**
 * A sync setting the operator set wrong, against a real local stack and the provider fakes: every
 * `sync` subcommand, and every command that sends the sync fast path, exits 2 with one line naming the
 * variable, before anything is read from a provider, written, moved or pushed. A provider or a table
 * that does not answer is a failure (exit 1), not a setting.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack } from './sync-reconcile-support.js';

/** Each setting wrong in one way, and the line that must name it. */
const WRONG: ReadonlyArray<{ name: string; set: Record<string, string>; line: RegExp }> = [
  {
    name: 'a malformed TOPIC_ALIASES',
    set: { TOPIC_ALIASES: 'newsletter' },
    line: /^error: TOPIC_ALIASES entry 1 is not canonical=alias$/,
  },
  {
    name: 'a POSTMARK_STREAMS naming no stream',
    set: { POSTMARK_STREAMS: ' , ' },
    line: /^error: POSTMARK_STREAMS names no stream$/,
  },
  {
    name: 'a MAILGUN_DOMAINS entry that is no domain',
    set: { MAILGUN_DOMAINS: 'not a domain' },
    line: /^error: MAILGUN_DOMAINS includes "not a domain", which is not a domain name$/,
  },
  {
    name: 'a SYNC_<P>_RATE out of range',
    set: { SYNC_SENDGRID_RATE: '0' },
    line: /^error: SYNC_SENDGRID_RATE must be calls per second, more than 0 and at most 1000, got "0"$/,
  },
  {
    name: 'a SYNC_<P>_CONCURRENCY that is no whole number',
    set: { SYNC_MAILGUN_CONCURRENCY: '1.5' },
    line: /^error: SYNC_MAILGUN_CONCURRENCY must be a whole number of calls in flight from 1 to 64, got "1.5"$/,
  },
  {
    name: 'a SYNC_QUEUE_URL that is no queue URL',
    set: { SYNC_QUEUE_URL: 'ratchet-sync' },
    line: /^error: SYNC_QUEUE_URL must be an SQS queue URL: http\(s\):\/\/host\/account\/queue-name, got "ratchet-sync"$/,
  },
  {
    name: 'a SYNC_DEAD_LETTER_QUEUE_URL that is no URL',
    set: { SYNC_DEAD_LETTER_QUEUE_URL: 'sqs:dead' },
    line: /^error: SYNC_DEAD_LETTER_QUEUE_URL must be an SQS queue URL: .*, got "sqs:dead"$/,
  },
];

describe('the CLI refuses a wrong sync setting with exit 2, and touches nothing', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;
  let csv: string;
  const suppressed = 'already-suppressed@example.com';
  const drift = 'drift-at-sendgrid@example.com';

  beforeAll(async () => {
    ({ fakes, stack, env } = await startReconcileStack({ POSTMARK_STREAMS: 'outbound' }));
    // Drift both ways for reconcile --apply to repair, a suppression for reactivate to lift, a dead letter for retry.
    expect(await ratchet(env, 'suppressions', 'add', suppressed, '--reason', 'x', '--actor', 'ops')).toMatchObject({
      code: 0,
    });
    fakes.sendgrid.seed('bounces', { email: drift, created: 1_700_000_000, reason: '550 unknown' });
    await stack.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.sync!.deadLetterUrl,
        MessageBody: JSON.stringify({ email: suppressed, provider: 'sendgrid' }),
        MessageAttributes: { provider: { DataType: 'String', StringValue: 'sendgrid' } },
      }),
    );
    csv = join(tmpdir(), `ratchet-sync-settings-${process.pid}.csv`);
    writeFileSync(csv, 'created,email,reason,status\n1443651125,imported@example.com,550 User unknown,5.1.1\n');
  });
  afterAll(() => stopReconcileStack({ fakes, stack }));

  const providerCalls = () =>
    [fakes.ses, fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend].reduce((n, f) => n + f.calls.length, 0);
  const depth = async (url: string) =>
    Number(
      (
        await stack.clients.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        )
      ).Attributes?.ApproximateNumberOfMessages ?? -1,
    );
  /** What a refused command must leave as it was: the records, both sync queues, and the providers (never called). */
  async function world() {
    return {
      suppressed: (await stack.record(suppressed))?.status,
      drift: await stack.record(drift),
      imported: await stack.record('imported@example.com'),
      queue: await depth(stack.sync!.queueUrl),
      deadLetters: await depth(stack.sync!.deadLetterUrl),
      providerCalls: providerCalls(),
    };
  }

  const COMMANDS: readonly string[][] = [
    ['sync', 'status'],
    ['sync', 'status', '--json'],
    ['sync', 'retry'],
    ['sync', 'reconcile'],
    ['sync', 'reconcile', '--apply'],
    ['sync', 'reconcile', '--provider', 'sendgrid', '--apply'],
    ['suppressions', 'add', 'new@example.com', '--reason', 'x', '--actor', 'ops'],
    ['suppressions', 'reactivate', suppressed, '--reason', 'x', '--actor', 'ops'],
    ['suppressions', 'import', '', '--format', 'sendgrid-bounces'],
  ];
  const argv = (command: readonly string[]) => command.map((a) => a || csv);

  for (const wrong of WRONG) {
    it(`${wrong.name}: every sync command and fast-path write exits 2 naming it; nothing changes`, async () => {
      for (const f of [fakes.ses, fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend]) f.clearCalls();
      const before = await world();
      const results = [];
      for (const command of COMMANDS)
        results.push({ command: command.join(' '), ...(await ratchet({ ...env, ...wrong.set }, ...argv(command))) });
      expect(results).toEqual(
        COMMANDS.map((command) => ({
          command: command.join(' '),
          code: 2,
          out: '',
          err: expect.stringMatching(wrong.line),
        })),
      );
      expect(await world()).toEqual(before);
      expect(before.providerCalls).toBe(0);
      expect(await stack.record('new@example.com')).toBeUndefined();
    });
  }

  it("a provider's key missing: reconcile (which calls the provider) exits 2 naming it, and nothing is pulled or pushed", async () => {
    for (const f of [fakes.ses, fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend]) f.clearCalls();
    const { SENDGRID_API_KEY: _key, ...keyless } = env;
    const before = await world();
    const commands = [
      ['sync', 'reconcile'],
      ['sync', 'reconcile', '--apply'],
      ['sync', 'reconcile', '--provider', 'sendgrid'],
      ['sync', 'reconcile', '--provider', 'sendgrid', '--apply', '--json'],
    ];
    const results = [];
    for (const command of commands) results.push(await ratchet(keyless, ...command));
    expect(results).toEqual(
      commands.map(() => ({
        code: 2,
        out: '',
        err: 'error: SYNC_PROVIDERS includes sendgrid but SENDGRID_API_KEY is not set',
      })),
    );
    expect(await world()).toEqual(before);
    expect(before.providerCalls).toBe(0);
  });

  it('a missing key is no error where no provider is called: sync status, as on AWS with only SYNC_PROVIDERS set', async () => {
    const result = await ratchet(
      stack.cliEnv({ SYNC_PROVIDERS: 'sendgrid', SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl }),
      'sync',
      'status',
      '--json',
    );
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(result.out).providers.sendgrid).toMatchObject({ failed: 1 });
  });

  it('a provider that does not answer is a failure, exit 1, not a setting', async () => {
    const result = await ratchet(
      { ...env, SENDGRID_API_URL: 'http://127.0.0.1:1' },
      'sync',
      'reconcile',
      '--provider',
      'sendgrid',
    );
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^error: .*sendgrid/i);
  });

  it('a table that does not answer is a failure, exit 1, not a setting', async () => {
    for (const command of [
      ['sync', 'status'],
      ['sync', 'reconcile', '--provider', 'sendgrid'],
    ]) {
      const result = await ratchet({ ...env, DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' }, ...command);
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/ECONNREFUSED/);
    }
  });
});
