/**
 * The sync side of the CLI when its surroundings are wrong, against a real local stack: a
 * SYNC_PROVIDERS that does not parse, a sync queue that is not there, dead letters that cannot be
 * found or that the worker did not write, and a suppression table without the `sync-due` index.
 * What the operator sees (one line, the exit code) and that nothing is half-written.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

describe('the sync side of the CLI, when its surroundings are wrong', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  beforeAll(async () => {
    fakes = await startProviderFakes();
    stack = await startTestStack({ env: { ...fakes.env } });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  const providers = () => fakes.env.SYNC_PROVIDERS!;

  it('a SYNC_PROVIDERS that does not parse: exit 2 naming it, and nothing is written', async () => {
    const email = 'typo@example.com';
    for (const argv of [
      ['suppressions', 'add', email, '--reason', 'x', '--actor', 'ops'],
      ['suppressions', 'get', email],
      ['sync', 'status'],
    ]) {
      const result = await ratchet(stack.cliEnv({ SYNC_PROVIDERS: 'ses,sendgird' }), ...argv);
      expect(result).toEqual({
        code: 2,
        out: '',
        err: 'error: SYNC_PROVIDERS: "sendgird" is not one of ses, sendgrid, postmark, mailgun, resend',
      });
    }
    expect(await stack.record(email)).toBeUndefined();
  });

  it('a sync queue that is not there: the changes are written, exit 0, and one warning naming the queue, not one per change', async () => {
    const file = join(tmpdir(), `ratchet-sync-faults-${process.pid}.csv`);
    const rows = ['created,email,reason,status'];
    for (let i = 0; i < 25; i++) rows.push(`1443651125,noqueue${i}@example.com,550 User unknown,5.1.1`);
    writeFileSync(file, `${rows.join('\n')}\n`);
    const env = stack.cliEnv({ SYNC_PROVIDERS: providers(), SYNC_QUEUE_NAME: 'absent-sync' });
    const result = await ratchet(env, 'suppressions', 'import', file, '--format', 'sendgrid-bounces');
    expect(result).toMatchObject({ code: 0, out: 'added 25, already present 0, invalid 0' });
    expect(result.err.split('\n')).toEqual([
      expect.stringMatching(/^warning: the sync queue absent-sync .*: the sweeper sends the changes within/),
    ]);
    // The outbox holds every change for the sweeper.
    for (let i = 0; i < 25; i++)
      expect(await stack.record(`noqueue${i}@example.com`)).toMatchObject({ syncPending: expect.any(String) });
  });

  it('sync status when the dead letters cannot be found: failed is unknown (null), never 0, and exit 1 naming what to set', async () => {
    const env = stack.cliEnv({ SYNC_PROVIDERS: 'ses,resend', SYNC_QUEUE_NAME: 'absent-sync' });
    const result = await ratchet(env, 'sync', 'status', '--json');
    expect(result.code).toBe(1);
    const status = JSON.parse(result.out);
    expect(status.providers.ses).toMatchObject({ failed: null, pending: expect.any(Number) });
    expect(status.providers.resend).toMatchObject({ failed: null });
    expect(result.err).toMatch(/^error: sync status: .*absent-sync-dead-letters.*SYNC_DEAD_LETTER_QUEUE_URL/);
    const text = await ratchet(env, 'sync', 'status');
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/^ses +pending \d+ {2}failed unknown {2}/);
    // Only the queue URL known, not its dead letters: the same, not a silent 0.
    const urlOnly = stack.cliEnv({ SYNC_PROVIDERS: 'ses', SYNC_QUEUE_URL: stack.sync!.queueUrl });
    const partial = await ratchet(urlOnly, 'sync', 'status', '--json');
    expect(partial.code).toBe(1);
    expect(JSON.parse(partial.out).providers.ses.failed).toBeNull();
  });

  it('sync retry against an SQS endpoint that does not answer names the cause, not only the variables', async () => {
    const env = stack.cliEnv({ SYNC_PROVIDERS: providers(), SQS_ENDPOINT: 'http://127.0.0.1:1' });
    const result = await ratchet(env, 'sync', 'retry');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/ECONNREFUSED/);
  });

  it("a dead letter the queue's redrive policy moved (no provider attribute) counts as failed for the provider in its body", async () => {
    await stack.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.sync!.deadLetterUrl,
        MessageBody: JSON.stringify({ email: 'crasher@example.com', provider: 'resend' }),
      }),
    );
    const env = stack.cliEnv({
      SYNC_PROVIDERS: 'ses,resend',
      SYNC_QUEUE_URL: stack.sync!.queueUrl,
      SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl,
    });
    const result = await ratchet(env, 'sync', 'status', '--json');
    expect(result).toMatchObject({ code: 0, err: '' });
    const status = JSON.parse(result.out);
    expect(status.providers.resend.failed).toBe(1);
    expect(status.providers.ses.failed).toBe(0);
  });

  it('sync status on a table without the sync-due index, through DYNAMODB_ENDPOINT: read from the table, not a failure', async () => {
    const table = 'suppressions-before-the-index';
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: stack.config.dynamoEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'email', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'email', AttributeType: 'S' }],
      }),
    );
    client.destroy();
    const env = stack.cliEnv({ SYNC_PROVIDERS: 'ses', SUPPRESSION_TABLE: table });
    expect(
      await ratchet(env, 'suppressions', 'add', 'old@example.com', '--reason', 'x', '--actor', 'ops'),
    ).toMatchObject({ code: 0 });
    const result = await ratchet(
      { ...env, SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl },
      'sync',
      'status',
      '--json',
    );
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(result.out).providers.ses).toMatchObject({ pending: 1 });
  });

  it('sync retry while the cause persists: it moves what was there and ends, never chasing the dead letters the worker re-creates', async () => {
    const env = stack.cliEnv({
      SYNC_PROVIDERS: 'resend',
      SYNC_QUEUE_URL: stack.sync!.queueUrl,
      SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl,
    });
    const sqs = stack.clients.sqs;
    // Start from empty dead letters, then put three there, as the worker does for a refusal.
    await ratchet(env, 'sync', 'retry');
    await drainQueue(stack.sync!.queueUrl);
    const body = (n: number) => JSON.stringify({ email: `refused${n}@example.com`, provider: 'resend' });
    for (let n = 0; n < 3; n++) await deadLetter(body(n));
    // A worker whose provider still refuses: every message back on the sync queue is dead-lettered at once.
    let refusing = true;
    const worker = (async () => {
      while (refusing) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: stack.sync!.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        for (const m of Messages) {
          await deadLetter(m.Body!);
          await sqs.send(new DeleteMessageCommand({ QueueUrl: stack.sync!.queueUrl, ReceiptHandle: m.ReceiptHandle! }));
        }
      }
    })();
    try {
      const result = await Promise.race([
        ratchet(env, 'sync', 'retry'),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('sync retry did not end')), 15_000)),
      ]);
      expect(result).toMatchObject({ code: 0, out: 'moved 3 sync dead letters back to the sync queue' });
      // The ones the worker dead-lettered again while it ran are left there, and said so.
      expect(result.err).toMatch(/^(|note: [1-3] dead-lettered again while this ran, left in the dead letters: .*)$/);
    } finally {
      refusing = false;
      await worker;
    }

    async function deadLetter(messageBody: string) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.sync!.deadLetterUrl,
          MessageBody: messageBody,
          MessageAttributes: { provider: { DataType: 'String', StringValue: 'resend' } },
        }),
      );
    }
    async function drainQueue(url: string) {
      for (;;) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
        if (Messages.length === 0) return;
        for (const m of Messages)
          await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
      }
    }
  }, 40_000);
});
