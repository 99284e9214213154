/**
 * The sync queue's event source on one machine: receive loops feeding the worker handler batches the
 * way Lambda's SQS event source mapping does (ReportBatchItemFailures: it deletes only what the handler
 * finished, and leaves a failure hidden for exactly as long as the handler asked).
 *
 * Each loop stands for one of the event source's concurrent invocations, so the handler never runs more
 * than `concurrency` batches at once. Like the mapping's pollers, which are not the function, a loop
 * receives the next batch while the handler works on this one, and deletes what the handler finished
 * without holding the next invocation until SQS has answered. Waiting on both in turn left the handler
 * idle for a receive and a delete between batches: end to end did 637 changes/s that way and 694–733
 * this way, in fresh processes on the same machine (BENCHMARKS.md §11, the note under it).
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { SQS_BATCH_MAX } from '../../lambdas/adapters/sqs-limits.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { SYNC_QUEUE, SYNC_WORKER } from '../sync-definitions.js';
import { sqsEvent } from './sqs-event.js';

/**
 * How long the poller waits before asking again while it fills a batch: ten receives a second at most,
 * where Lambda's pollers wait on SQS's side. Only after a receive that came back short (the queue had
 * no more at hand), so a queue fed a few messages at a time fills the batch in a few receives, not one
 * receive a message, while a backlog fills it in back-to-back receives of 10.
 */
const GATHER_PAUSE_MS = 100;

/** Long poll of the loops: an empty queue holds the receive this long, and a stop waits at most about this. */
const LOOP_WAIT_SECONDS = 1;

/** After a failed round (SQS unreachable, a handler that threw), a loop waits this long before the next. */
const ERROR_PAUSE_MS = 500;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const errorText = (error: unknown) => String((error as Error)?.message ?? error);

export interface SyncPollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  region: string;
  /** Called for each batch; read at each call, so a caller that wraps the worker's handler is honoured. */
  invoke: (event: SQSEvent) => Promise<SQSBatchResponse>;
  log: Log;
}

export interface SyncPoller {
  /** One receive → invoke → delete round, the delete awaited; how many messages it handled. */
  pollOnce(waitSeconds?: number): Promise<number>;
  /** Starts `concurrency` receive loops. */
  start(concurrency: number): void;
  /** Stops the loops: a batch already received is handled first, and every delete under way is awaited. */
  stop(): Promise<void>;
}

export function syncPoller(options: SyncPollerOptions): SyncPoller {
  const { sqs, queueUrl, log } = options;
  const sourceArn = 'arn:aws:sqs:local:000000000000:sync';
  let running = false;
  let loops: Promise<void>[] = [];
  const deleting = new Set<Promise<void>>();

  const receive = async (max: number, waitSeconds: number) =>
    (
      await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: max,
          WaitTimeSeconds: waitSeconds,
          VisibilityTimeout: SYNC_QUEUE.visibilityTimeoutSeconds,
          MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
        }),
      )
    ).Messages ?? [];

  /**
   * A batch as the event source's batching window makes one: it goes to the handler when it is full or
   * the window has passed since its first message, so a backlog is worked in full batches (one record
   * read per batch, one delete per ten messages) as on AWS, not in whatever trickled in first.
   */
  const gather = async (waitSeconds: number): Promise<Message[]> => {
    const wanted = (have: number) => Math.min(SQS_BATCH_MAX, SYNC_WORKER.batchSize - have);
    let last = await receive(wanted(0), waitSeconds);
    const messages = [...last];
    if (messages.length === 0) return messages;
    const windowEnds = Date.now() + SYNC_WORKER.maxBatchingWindowSeconds * 1000;
    while (messages.length < SYNC_WORKER.batchSize && Date.now() < windowEnds) {
      // A full receive says more may be waiting: ask again at once. A short one waits for more to arrive.
      if (last.length < SQS_BATCH_MAX) await pause(Math.min(GATHER_PAUSE_MS, Math.max(0, windowEnds - Date.now())));
      try {
        last = await receive(wanted(messages.length), 0);
      } catch (error) {
        // What this batch holds already goes to the handler now, not back to the queue once its
        // visibility timeout (six minutes) has passed.
        log.error('sync poller error', { error: errorText(error) });
        break;
      }
      messages.push(...last);
    }
    return messages;
  };

  /** Runs the handler on a batch; resolves once it has returned, with the delete of what it finished. */
  const invoke = async (messages: Message[]): Promise<() => Promise<void>> => {
    const response = await options.invoke(sqsEvent(messages, sourceArn, options.region));
    const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    return async () => {
      const deletes: Promise<unknown>[] = [];
      for (let i = 0; i < done.length; i += SQS_BATCH_MAX) {
        const entries = done
          .slice(i, i + SQS_BATCH_MAX)
          .map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! }));
        deletes.push(sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries })));
      }
      const settled = await Promise.allSettled(deletes);
      const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (rejected) throw rejected.reason;
    };
  };

  /** A delete the loop does not wait for: a failure leaves the messages to come back after their visibility timeout. */
  const deleteInBackground = (remove: () => Promise<void>) => {
    const pending: Promise<void> = remove()
      .catch((error: unknown) =>
        log.error('sync poller delete failed; the messages come back after their visibility timeout', {
          error: errorText(error),
        }),
      )
      .finally(() => deleting.delete(pending));
    deleting.add(pending);
  };

  /** Settles as a { messages } or an { error }, so a receive under way never rejects unobserved. */
  type Received = { messages: Message[]; error?: unknown };
  const gatherAhead = (): Promise<Received> =>
    gather(LOOP_WAIT_SECONDS).then(
      (messages) => ({ messages }),
      (error: unknown) => ({ messages: [], error }),
    );

  const nothing: Promise<Received> = Promise.resolve({ messages: [] });

  const loop = async () => {
    // At most one batch received ahead: the handler still sees one batch at a time from this loop.
    let ahead = gatherAhead();
    for (;;) {
      const received = await ahead;
      // Stopped: nothing more is received, but a batch already received is handled, not left hidden.
      if (!running && received.messages.length === 0) return;
      if ('error' in received) {
        log.error('sync poller error', { error: errorText(received.error) });
        await pause(ERROR_PAUSE_MS);
        ahead = running ? gatherAhead() : nothing;
        continue;
      }
      ahead = running ? gatherAhead() : nothing;
      if (received.messages.length === 0) continue;
      try {
        deleteInBackground(await invoke(received.messages));
      } catch (thrown) {
        // A thrown handler fails the whole batch, as in Lambda: nothing is deleted.
        log.error('sync poller error', { error: errorText(thrown) });
        await pause(ERROR_PAUSE_MS);
      }
    }
  };

  return {
    async pollOnce(waitSeconds = 0) {
      const messages = await gather(waitSeconds);
      if (messages.length === 0) return 0;
      await (await invoke(messages))();
      return messages.length;
    },
    start(concurrency) {
      if (running) return;
      running = true;
      loops = Array.from({ length: concurrency }, loop);
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      await Promise.all(deleting);
    },
  };
}
