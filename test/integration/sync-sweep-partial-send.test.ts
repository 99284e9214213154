/**
 * A sweep page whose SendMessageBatch SQS takes only in part (`Failed` entries in a call that succeeds):
 * the items it queued are leased, so the next sweep does not send them a second message, and the items
 * it refused stay due, so the next sweep sends them. The sweep fails there (SQS is failing); the shards it
 * had not read yet are the next sweep's. The table (dynalite) and the queue (fauxqs) are
 * real; only the refusal is staged, by a client that forwards every call and drops one entry of the
 * batch, since no emulator fails an entry of a valid batch on cue.
 */
import { ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { buildSyncSweeper } from '../../lambdas/adapters/wiring/sync-sweeper.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { wasLeased } from '../../lambdas/core/sync/lease.js';
import { SyncSendError } from '../../lambdas/core/sync/message.js';
import { ensureSyncQueues } from '../../lib/local/sync.js';
import { startTestStack, type TestStack } from './harness.js';

const REFUSED = 'refused@example.com';

describe('a sweep page SQS takes only in part', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: {} });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('leases what was queued, leaves the refused item due, and the next sweep sends only that one', async () => {
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings({}));
    const emails = [...Array.from({ length: 11 }, (_, i) => `queued${i}@example.com`), REFUSED];
    // Changes whose fast-path messages were lost: marked, due within the sweep's horizon.
    for (const email of emails) await store.suppress(email, { actor: 'ops', reason: 'complaint', at: Date.now() });

    const { queueUrl } = await ensureSyncQueues(stack.clients.sqs, 'partial-sync');
    let refuse = true;
    const refusing = new Proxy(stack.clients.sqs, {
      get(target, key, receiver) {
        if (key !== 'send') return Reflect.get(target, key, receiver);
        return async (command: unknown) => {
          if (!(refuse && command instanceof SendMessageBatchCommand)) return target.send(command as never);
          const entries = command.input.Entries ?? [];
          const dropped = entries.find((e) => e.MessageBody?.includes(REFUSED));
          if (!dropped) return target.send(command as never);
          const taken = entries.filter((e) => e !== dropped);
          const out = await target.send(
            new SendMessageBatchCommand({ QueueUrl: command.input.QueueUrl, Entries: taken }),
          );
          return { ...out, Failed: [{ Id: dropped.Id, Code: 'InternalError', SenderFault: false }] };
        };
      },
    }) as SQSClient;
    const config = { ...stack.config, settings: { ...stack.config.settings, SYNC_PROVIDERS: 'sendgrid' } };
    const sweeper = buildSyncSweeper(config, { doc: stack.clients.doc, sqs: refusing }, { queueUrl: () => queueUrl });
    // Past the fresh markers (due a minute after the write), short of a lease (two minutes at least).
    const horizon = () => ({ dueBefore: Date.now() + 90_000, deadline: Date.now() + 40_000 });

    // The sweep stops at the page SQS refused part of: shards after it are left for the next sweep.
    await expect(sweeper.sweep(horizon())).rejects.toBeInstanceOf(SyncSendError);
    const dueAfterFirst = new Map(
      await Promise.all(emails.map(async (e) => [e, Number((await stack.record(e))?.syncDue)] as const)),
    );
    const leasedInFirst = emails.filter((e) => wasLeased(dueAfterFirst.get(e)!));
    expect(leasedInFirst).not.toContain(REFUSED);
    expect(leasedInFirst.length).toBeGreaterThan(0);

    refuse = false;
    const second = await sweeper.sweep(horizon());
    // Only what the first did not queue: the refused item and the shards it did not reach.
    expect(second.sent).toBe(emails.length - leasedInFirst.length);
    for (const email of leasedInFirst)
      expect(Number((await stack.record(email))?.syncDue)).toBe(dueAfterFirst.get(email));

    const bodies: string[] = [];
    for (;;) {
      const { Messages = [] } = await stack.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (Messages.length === 0) break;
      bodies.push(...Messages.map((m) => JSON.parse(m.Body ?? '{}').email as string));
    }
    expect(bodies.sort()).toEqual([...emails].sort());
  });
});
