/**
 * Every address Ratchet stores must travel on the sync queue. SQS refuses a message body holding a
 * character outside #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF. JSON.stringify
 * escapes control characters and lone surrogates, but not the noncharacters U+FFFE and U+FFFF, and an
 * address may hold them (normalizeRecipient accepts any local part without spaces or specials). Sent
 * raw, such an address is refused (a `Failed` entry on fauxqs, InvalidMessageContents), the whole send
 * throws, and the sweep that read it throws before leasing its page: the same page is sent again every
 * minute and its address never reaches the worker. Real fauxqs, no mock.
 */
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { SqsSyncQueue } from '../../lambdas/adapters/sqs-sync-queue.js';
import { normalizeRecipient } from '../../lambdas/core/event.js';
import { DrainMeter } from '../../lambdas/core/sync/lease.js';
import { parseSyncMessage } from '../../lambdas/core/sync/message.js';
import { runSweep, type SweptItem } from '../../lambdas/core/sync/sweep.js';
import { type Emulator, startSqs } from '../../lib/local/emulators.js';

const ODD = ['reader\uffff@example.com', 'reader\ufffe@example.com'];

describe('sync queue message bodies on fauxqs', () => {
  let emulator: Emulator;
  let sqs: ReturnType<typeof createSqsClient>;
  let queues = 0;
  beforeAll(async () => {
    emulator = await startSqs();
    sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulator.endpoint });
  });
  afterAll(async () => {
    sqs?.destroy();
    await emulator?.stop();
  });
  const queue = async () => (await sqs.send(new CreateQueueCommand({ QueueName: `bodies-${++queues}` }))).QueueUrl!;
  const receiveAll = async (url: string) => {
    const bodies: string[] = [];
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
      );
      if (Messages.length === 0) return bodies;
      bodies.push(...Messages.map((m) => m.Body!));
    }
  };

  it('the addresses are ones Ratchet stores', () => {
    for (const email of ODD) expect(normalizeRecipient(email)).toBe(email);
  });

  it('an address with U+FFFE or U+FFFF is sent, and reads back as the same address', async () => {
    const url = await queue();
    const messages = [...ODD, 'plain@example.com'].map((email) => ({ email, provider: 'ses' as const }));
    await new SqsSyncQueue(sqs, () => url).send(messages);
    const received = (await receiveAll(url)).map(parseSyncMessage).map((m) => m.email);
    expect(received.sort()).toEqual([...ODD, 'plain@example.com'].sort());
  });

  it('a sweep whose page holds such an address sends and leases the whole page', async () => {
    const url = await queue();
    const due = new Map<string, number>([...ODD, 'plain@example.com'].map((email) => [email, 1_000]));
    const result = await runSweep(
      {
        now: () => 2_000,
        depth: async () => ({ visible: 0, total: 0 }),
        send: (messages) => new SqsSyncQueue(sqs, () => url).send(messages),
        postpone: async (email, from, to) => {
          if (due.get(email) === from) due.set(email, to);
        },
        pending: async (dueBefore, onPage) => {
          const items: SweptItem[] = [...due]
            .filter(([, d]) => d <= dueBefore)
            .map(([email, d]) => ({ email, due: d, change: 1, sync: {} }));
          await onPage(items);
          return { complete: true };
        },
      },
      new DrainMeter(100),
      ['ses'],
      { dueBefore: 2_000, deadline: 60_000, intervalMs: 60_000, writeConcurrency: 4 },
    );
    expect(result.sent).toBe(3);
    expect([...due.values()].every((d) => d > 2_000)).toBe(true);
    expect(await receiveAll(url)).toHaveLength(3);
  });
});
