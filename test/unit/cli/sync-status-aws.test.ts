/**
 * `ratchet sync status` on AWS while DynamoDB is still building the `sync-due` index (sync just turned
 * on for a table with records): the exact answer DynamoDB gives has no emulator, so the SDK clients are
 * mocked (aws-sdk-client-mock). The backfill's progress, the thing to watch then, must still show.
 */
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../../lambdas/adapters/sqs-dead-letters.js';
import { PEEK_MAX, peekAll } from '../../../lib/cli/commands/sync-status.js';
import { ratchetCommand } from '../../../lib/cli/ratchet.js';

const BACKFILLING = 'Cannot read from backfilling global secondary index: sync-due';

describe('ratchet sync status on AWS while the index is being built', () => {
  let dynamo: ReturnType<typeof mockClient>;
  let sqs: ReturnType<typeof mockClient>;
  beforeEach(() => {
    dynamo = mockClient(DynamoDBDocumentClient);
    sqs = mockClient(SQSClient);
    dynamo.on(QueryCommand).rejects(Object.assign(new Error(BACKFILLING), { name: 'ValidationException' }));
    dynamo.on(GetCommand).resolves({
      Item: { pk: 'sync#sendgrid', backfill: { done: false, scanned: 12_000, marked: 600, cursor: '{}' } },
    });
    sqs.on(ReceiveMessageCommand).resolves({ Messages: [] });
  });
  afterEach(() => {
    dynamo.restore();
    sqs.restore();
  });

  const env = {
    RATCHET_TARGET: 'aws',
    AWS_REGION: 'us-east-1',
    SYNC_PROVIDERS: 'sendgrid',
    SYNC_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/acme-sync',
    SYNC_DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/acme-sync-dead-letters',
  };

  async function status(...flags: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await ratchetCommand(['sync', 'status', ...flags], env, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      progressTty: false,
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('prints the backfill and the dead letters, pending unknown, a note naming the answer, exit 0; never scans', async () => {
    const json = await status('--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({
      providers: {
        sendgrid: {
          pending: null,
          failed: 0,
          refused: null,
          lastSuccessAt: null,
          backfill: { state: 'running', scanned: 12_000, marked: 600 },
          lastReconcile: null,
        },
      },
      indexNotReady: BACKFILLING,
    });
    expect(json.err).toBe(
      `note: the sync-due index cannot be read yet (${BACKFILLING}): pending and refused are unknown until DynamoDB has built it; the sweeper asks again every minute`,
    );
    const text = await status();
    expect(text.code).toBe(0);
    expect(text.out).toBe(
      'sendgrid  pending unknown  failed 0  refused unknown  lastSuccessAt never  backfill running, 12000 read, 600 queued  lastReconcile never',
    );
    // On AWS the operator's answer is the index's; the table is never read whole for it.
    expect(dynamo.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('a table without the index at all (a retained one created before sync): says so, and where to read how to add it', async () => {
    const missing = 'The table does not have the specified index: sync-due';
    dynamo.on(QueryCommand).rejects(Object.assign(new Error(missing), { name: 'ValidationException' }));
    const result = await status('--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      providers: { sendgrid: { pending: null } },
      indexNotReady: missing,
    });
    expect(result.err).toMatch(/^note: the suppression table has no sync-due index .*docs\/deploy-lifecycle\.md\)$/);
    expect(dynamo.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('counts a dead letter a short poll would miss: SQS answers a short poll from a sample of its servers', async () => {
    // AWS: with WaitTimeSeconds 0, a queue holding few messages may answer empty; a long poll asks every server.
    let delivered = false;
    sqs.on(ReceiveMessageCommand).callsFake((input: { WaitTimeSeconds?: number }) => {
      if (!input.WaitTimeSeconds || delivered) return {};
      delivered = true;
      const body = JSON.stringify({ email: 'a@example.com', provider: 'sendgrid' });
      return {
        Messages: [
          {
            MessageId: 'm1',
            Body: body,
            ReceiptHandle: 'r1',
            MessageAttributes: { provider: { DataType: 'String', StringValue: 'sendgrid' } },
          },
        ],
      };
    });
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    dynamo.on(QueryCommand).resolves({ Items: [] });
    const json = await status('--json');
    expect(json).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(json.out).providers.sendgrid.failed).toBe(1);
    // And it is made visible again at once: counting is not taking.
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)[0]!.args[0].input).toMatchObject({
      ReceiptHandle: 'r1',
      VisibilityTimeout: 0,
    });
  });

  it('a dead-letter queue too large to read within the hiding time: each message counted once, and it ends', async () => {
    // Once the first ones received become visible again (30 s later), SQS hands them out again.
    const ids = ['m1', 'm2', 'm3'];
    let n = 0;
    sqs.on(ReceiveMessageCommand).callsFake(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const id = ids[n++ % ids.length]!;
      const body = JSON.stringify({ email: `${id}@example.com`, provider: 'sendgrid' });
      return { Messages: [{ MessageId: id, Body: body, ReceiptHandle: `${id}-${n}` }] };
    });
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    dynamo.on(QueryCommand).resolves({ Items: [] });
    const json = await Promise.race([
      status('--json'),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('sync status did not end')), 3_000)),
    ]);
    expect(json).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(json.out).providers.sendgrid.failed).toBe(3);
  });
});

describe('counting the sync dead letters', () => {
  it('stops at its bound, below what SQS keeps in flight, says it stopped, and makes every counted one visible again', async () => {
    let n = 0;
    const released: string[] = [];
    const queue = {
      // A queue far larger than the bound: ten fresh messages every receive.
      receive: async () =>
        Array.from({ length: 10 }, () => {
          const id = `m${n++}`;
          return { id, body: '{}', receiptHandle: id, attributes: {}, receiveCount: 1 } as unknown as DeadLetter;
        }),
      release: async (m: DeadLetter) => {
        released.push(m.id);
      },
    };
    const peeked = await peekAll(queue, 25);
    expect(peeked.truncated).toBe(true);
    expect(peeked.messages).toHaveLength(30);
    expect(released).toHaveLength(30);
    expect(PEEK_MAX).toBeLessThan(120_000);
  });
});

describe('on AWS without SYNC_PROVIDERS', () => {
  let dynamo: ReturnType<typeof mockClient>;
  let sqs: ReturnType<typeof mockClient>;
  beforeEach(() => {
    dynamo = mockClient(DynamoDBDocumentClient);
    sqs = mockClient(SQSClient);
  });
  afterEach(() => {
    dynamo.restore();
    sqs.restore();
  });

  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const env = { RATCHET_TARGET: 'aws', AWS_REGION: 'us-east-1', SUPPRESSION_TABLE: 'acme-suppressions' };
    const code = await ratchetCommand(argv, env, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      progressTty: false,
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('the CLI cannot read the stack: "sync is off" says to set SYNC_PROVIDERS from the stack output SyncProviders', async () => {
    const fix = 'set SYNC_PROVIDERS from the stack output SyncProviders';
    const status = await run('sync', 'status');
    expect(status).toMatchObject({ code: 0, err: '' });
    expect(status.out).toMatch(/^sync is off: /);
    expect(status.out).toContain(fix);
    const json = await run('sync', 'status', '--json');
    expect(json).toMatchObject({ code: 0, out: '{"sync":"off","providers":{}}' });
    expect(json.err).toMatch(/^note: sync is off: /);
    expect(json.err).toContain(fix);
    const reconcile = await run('sync', 'reconcile');
    expect(reconcile).toMatchObject({ code: 2, out: '' });
    expect(reconcile.err).toMatch(/^error: sync is off: .*nothing to reconcile/);
    expect(reconcile.err).toContain(fix);
    // It says so without asking AWS anything.
    expect(dynamo.calls()).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });
});
