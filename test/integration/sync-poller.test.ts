/**
 * The local sync queue's event source (lib/local/sync-poller.ts) on a real queue (fauxqs): each loop
 * receives its next batch while the handler works on this one and deletes in the background, yet the
 * handler never runs more batches at once than there are loops, every message is handled once, failures
 * stay on the queue, a batch received when the poller stops is handled rather than left hidden, and a
 * delete SQS fails is logged without stopping the loop. The failing delete is staged by a client that
 * forwards every other call, since fauxqs does not fail a valid DeleteMessageBatch on cue.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { SQS_BATCH_MAX } from '../../lambdas/adapters/sqs-limits.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { type Emulator, startSqs } from '../../lib/local/emulators.js';
import { syncPoller } from '../../lib/local/sync-poller.js';
import { SYNC_WORKER } from '../../lib/sync-definitions.js';

interface Logged {
  message: string;
  fields?: Record<string, unknown>;
}

function recordingLog(): { log: Log; errors: Logged[] } {
  const errors: Logged[] = [];
  const ignore = () => {};
  return {
    errors,
    log: { info: ignore, warn: ignore, error: (message, fields) => void errors.push({ message, fields }) },
  };
}

describe('the local sync poller', () => {
  let emulator: Emulator;
  let sqs: SQSClient;
  let queues = 0;
  beforeAll(async () => {
    emulator = await startSqs();
    sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulator.endpoint });
  });
  afterAll(async () => {
    sqs?.destroy();
    await emulator?.stop();
  });

  const queueWith = async (count: number): Promise<string> => {
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: `sync-poller-${++queues}` }))).QueueUrl!;
    for (let i = 0; i < count; i += 10) {
      const entries = Array.from({ length: Math.min(10, count - i) }, (_, j) => ({
        Id: String(j),
        MessageBody: `m${i + j}`,
      }));
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    }
    return url;
  };
  const depth = async (url: string) => {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
  };

  /** The test's SQS client, with `before` seeing each command first: it may count it, or throw to fail it. */
  const watched = (before: (command: unknown) => void) =>
    new Proxy(sqs, {
      get(target, key, receiver) {
        if (key !== 'send') return Reflect.get(target, key, receiver);
        return async (command: unknown) => {
          before(command);
          return target.send(command as never);
        };
      },
    }) as SQSClient;

  /** A client whose receives fail, SQS's way, on those `refuse` picks by their number (1, 2, …). */
  const failingReceives = (refuse: (n: number) => boolean) => {
    let receives = 0;
    return watched((command) => {
      if (command instanceof ReceiveMessageCommand && refuse(++receives)) {
        throw Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' });
      }
    });
  };

  const until = async (done: () => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(done()).toBe(true);
  };

  it('drains a backlog with at most one batch in the handler per loop, each message once, and deletes them all', async () => {
    const url = await queueWith(200);
    const seen: string[] = [];
    let inHandler = 0;
    let mostInHandler = 0;
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      inHandler++;
      mostInHandler = Math.max(mostInHandler, inHandler);
      // Slow enough that every loop has its next batch received before this one returns.
      await new Promise((r) => setTimeout(r, 30));
      seen.push(...event.Records.map((r) => r.body));
      inHandler--;
      return { batchItemFailures: [] };
    };
    const poller = syncPoller({ sqs, queueUrl: url, region: 'us-east-1', invoke, log: recordingLog().log });
    poller.start(2);
    await until(() => seen.length >= 200);
    await poller.stop();
    expect(mostInHandler).toBe(2);
    expect(new Set(seen).size).toBe(200);
    expect(seen).toHaveLength(200);
    expect(await depth(url)).toBe(0);
  });

  it('leaves the items the handler reports failed on the queue, and deletes the rest', async () => {
    const url = await queueWith(20);
    const handled = new Set<string>();
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      for (const r of event.Records) handled.add(r.body);
      return {
        batchItemFailures: event.Records.filter((r) => r.body === 'm7').map((r) => ({ itemIdentifier: r.messageId })),
      };
    };
    const poller = syncPoller({ sqs, queueUrl: url, region: 'us-east-1', invoke, log: recordingLog().log });
    poller.start(1);
    await until(() => handled.size >= 20);
    await poller.stop();
    // Only m7 is left, hidden for the queue's visibility timeout.
    expect(await depth(url)).toBe(1);
  });

  it('handles a batch it had received ahead when stopped, instead of leaving it hidden', async () => {
    const total = SYNC_WORKER.batchSize + 10;
    const url = await queueWith(total);
    const batches: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      batches.push(event.Records.map((r) => r.body));
      if (batches.length === 1) await held;
      return { batchItemFailures: [] };
    };
    const poller = syncPoller({ sqs, queueUrl: url, region: 'us-east-1', invoke, log: recordingLog().log });
    poller.start(1);
    await until(() => batches.length === 1);
    // The loop's next batch is received (hidden) while the first is still in the handler.
    let hiddenAhead = 0;
    const end = Date.now() + 5_000;
    while (Date.now() < end) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }),
      );
      hiddenAhead = Number(Attributes.ApproximateNumberOfMessagesNotVisible);
      if (hiddenAhead === total) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(hiddenAhead).toBe(total);
    const stopping = poller.stop();
    release();
    await stopping;
    expect(batches).toHaveLength(2);
    expect(batches.flat().sort()).toEqual(Array.from({ length: total }, (_, i) => `m${i}`).sort());
    expect(await depth(url)).toBe(0);
  });

  it('logs a delete SQS fails and goes on; the messages stay on the queue', async () => {
    const url = await queueWith(20);
    let refuseDeletes = 1;
    const failing = watched((command) => {
      if (command instanceof DeleteMessageBatchCommand && refuseDeletes > 0) {
        refuseDeletes--;
        throw Object.assign(new Error('We encountered an internal error. Please try again.'), {
          name: 'InternalError',
        });
      }
    });
    const handled: string[] = [];
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      handled.push(...event.Records.map((r) => r.body));
      return { batchItemFailures: [] };
    };
    const { log, errors } = recordingLog();
    const poller = syncPoller({ sqs: failing, queueUrl: url, region: 'us-east-1', invoke, log });
    poller.start(1);
    await until(() => handled.length >= 20);
    await poller.stop();
    expect(errors).toEqual([
      {
        message: 'sync poller delete failed; the messages come back after their visibility timeout',
        fields: { error: 'We encountered an internal error. Please try again.' },
      },
    ]);
    // One batch of 20, deleted in two requests of 10 (SQS's most): the first request's ten were not deleted
    // (they come back after the visibility timeout); the second's were.
    expect(await depth(url)).toBe(10);
  });

  it('a handler that throws fails its whole batch (nothing deleted), is logged, and the loop goes on', async () => {
    const url = await queueWith(SYNC_WORKER.batchSize + 10);
    let calls = 0;
    const handled: string[] = [];
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      if (++calls === 1) throw new Error('handler crashed');
      handled.push(...event.Records.map((r) => r.body));
      return { batchItemFailures: [] };
    };
    const { log, errors } = recordingLog();
    const poller = syncPoller({ sqs, queueUrl: url, region: 'us-east-1', invoke, log });
    poller.start(1);
    await until(() => handled.length >= 10);
    await poller.stop();
    expect(errors).toEqual([{ message: 'sync poller error', fields: { error: 'handler crashed' } }]);
    // The thrown batch stays hidden until its visibility timeout; the next ten were deleted.
    expect(await depth(url)).toBe(SYNC_WORKER.batchSize);
  });

  it('a receive SQS fails is logged, and the loop receives again', async () => {
    const url = await queueWith(10);
    const failing = failingReceives((n) => n === 1);
    const handled: string[] = [];
    const { log, errors } = recordingLog();
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      handled.push(...event.Records.map((r) => r.body));
      return { batchItemFailures: [] };
    };
    const poller = syncPoller({ sqs: failing, queueUrl: url, region: 'us-east-1', invoke, log });
    poller.start(1);
    await until(() => handled.length >= 10);
    await poller.stop();
    expect(errors).toEqual([{ message: 'sync poller error', fields: { error: 'Service Unavailable' } }]);
    expect(await depth(url)).toBe(0);
  });

  it(`fills a batch of ${SYNC_WORKER.batchSize} from a backlog in back-to-back receives of ${SQS_BATCH_MAX}, and deletes it in requests of ${SQS_BATCH_MAX}`, async () => {
    const url = await queueWith(SYNC_WORKER.batchSize + 12);
    const sent: { command: string; entries?: number }[] = [];
    const counting = watched((command) => {
      if (command instanceof ReceiveMessageCommand) sent.push({ command: 'receive' });
      if (command instanceof DeleteMessageBatchCommand)
        sent.push({ command: 'delete', entries: command.input.Entries?.length });
    });
    const batches: number[] = [];
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      batches.push(event.Records.length);
      return { batchItemFailures: [] };
    };
    const poller = syncPoller({ sqs: counting, queueUrl: url, region: 'us-east-1', invoke, log: recordingLog().log });
    const started = performance.now();
    expect(await poller.pollOnce(0)).toBe(SYNC_WORKER.batchSize);
    const elapsed = performance.now() - started;
    const rounds = SYNC_WORKER.batchSize / SQS_BATCH_MAX;
    expect(sent.filter((s) => s.command === 'receive')).toHaveLength(rounds);
    // A full receive is followed at once by the next: a 100 ms pause after each would take 400 ms or more.
    expect(elapsed).toBeLessThan(100 * (rounds - 1));
    expect(sent.filter((s) => s.command === 'delete')).toEqual(
      Array.from({ length: rounds }, () => ({ command: 'delete', entries: SQS_BATCH_MAX })),
    );
    expect(await depth(url)).toBe(12);
    // The rest (12, fewer than a batch) go once the window has passed: one batch, in two receives and two deletes.
    expect(await poller.pollOnce(0)).toBe(12);
    expect(batches).toEqual([SYNC_WORKER.batchSize, 12]);
    expect(await depth(url)).toBe(0);
  });

  it('a receive that fails while a batch fills hands the handler what it has, logged, and nothing is left hidden', async () => {
    const url = await queueWith(30);
    // The second receive of the batch fails: the first brought 10.
    const failing = failingReceives((n) => n === 2);
    const batches: number[] = [];
    const { log, errors } = recordingLog();
    const invoke = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      batches.push(event.Records.length);
      return { batchItemFailures: [] };
    };
    const poller = syncPoller({ sqs: failing, queueUrl: url, region: 'us-east-1', invoke, log });
    expect(await poller.pollOnce(0)).toBe(10);
    expect(errors).toEqual([{ message: 'sync poller error', fields: { error: 'Service Unavailable' } }]);
    // The ten were handled and deleted; the other twenty are still there to receive, none hidden.
    expect(await depth(url)).toBe(20);
    expect(await poller.pollOnce(0)).toBe(20);
    expect(batches).toEqual([10, 20]);
    expect(await depth(url)).toBe(0);
  });

  it('pollOnce is one round with its delete done when it returns', async () => {
    const url = await queueWith(3);
    const poller = syncPoller({
      sqs,
      queueUrl: url,
      region: 'us-east-1',
      invoke: async () => ({ batchItemFailures: [] }),
      log: recordingLog().log,
    });
    // The batching window: three messages wait up to a second for more, then go as one batch.
    expect(await poller.pollOnce(0)).toBe(3);
    expect(await depth(url)).toBe(0);
    expect(await poller.pollOnce(0)).toBe(0);
  });
});
