/**
 * `npm start`'s stand-in for two managed AWS features dynalite lacks: the inbox table's DynamoDB stream
 * and the Lambda event source mapping that feeds it to the reputation counter. Like the SQS pollers,
 * it runs the same handler the Lambda runs, with events of the same shape.
 *
 * What it does: every row the inbox stores is recorded as the stream would (an INSERT with its
 * NEW_IMAGE, binary values in base64 as Lambda sends them), with a sequence number that only grows,
 * across restarts too (derived from the clock: `max(last + 1, now in ms × 10^6)`), on one shard
 * (`shardId-local`). Once started, every `localFlushMs` or once a batch is full, the buffer goes to the
 * handler in batches of the mapping's size; a failed batch stays at the head and is retried, and after
 * the mapping's retries it is dropped with an ERROR line (where AWS would send it to the on-failure queue).
 * Until `start()` (a runtime without its background work: tests and the bench drive it by hand) it only
 * buffers, and `flush()` hands over what it holds: on AWS the counter is a function of its own, so a
 * hand-driven stack counts when asked, never in the middle of what it times.
 *
 * What it does not guarantee: the buffer lives in memory. A kill -9 between the inbox put and the next
 * flush loses those counts locally (AWS keeps stream records 24 hours, so nothing is lost there).
 * `stop()` flushes what is buffered.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { InboxStreamRecord, StreamImage } from '../../lambdas/adapters/inbox-stream.js';
import { streamImageOf } from '../../lambdas/adapters/inbox-stream.js';
import type { InboxStore, Log } from '../../lambdas/core/pipeline/ports.js';
import type { ReputationCounterHandler } from '../../lambdas/handlers/reputation-counter-handler.js';
import { REPUTATION } from '../definitions.js';

export const LOCAL_STREAM_SHARD = 'shardId-local';

export interface LocalInboxStreamOptions {
  handler: ReputationCounterHandler<InboxStreamRecord>;
  log: Log;
  /** Default: the mapping's batch size. */
  batchSize?: number;
  /** Default: REPUTATION.counting.localFlushMs. */
  flushMs?: number;
  now?: () => number;
}

export class LocalInboxStream {
  private readonly buffer: InboxStreamRecord[] = [];
  private readonly batchSize: number;
  private readonly now: () => number;
  private last = 0n;
  private failures = 0;
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(private readonly options: LocalInboxStreamOptions) {
    this.batchSize = options.batchSize ?? REPUTATION.counting.batchSize;
    this.now = options.now ?? Date.now;
  }

  /** The inbox, recording each row it stores now on the stream. */
  wrap(inbox: InboxStore): InboxStore {
    return {
      prepare: (events, receivedAtMs) => inbox.prepare(events, receivedAtMs),
      store: async (row) => {
        const stored = await inbox.store(row);
        if (stored) this.record(streamImageOf(row));
        return stored;
      },
    };
  }

  /** One INSERT record of `image`, written now. */
  record(image: Record<string, AttributeValue>): void {
    const nowMs = this.now();
    const fromClock = BigInt(nowMs) * 1_000_000n;
    this.last = fromClock > this.last ? fromClock : this.last + 1n;
    this.buffer.push(insertRecord(image, String(this.last), nowMs));
    if (this.started && this.buffer.length >= this.batchSize) void this.flush();
  }

  /** Hands everything buffered to the handler, a batch at a time; resolves when it is done (or failed). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.drain());
    return this.flushing;
  }

  start(): void {
    this.started = true;
    this.timer = setInterval(() => void this.flush(), this.options.flushMs ?? REPUTATION.counting.localFlushMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, this.batchSize);
      try {
        await this.options.handler({ Records: batch, shardId: LOCAL_STREAM_SHARD });
        this.failures = 0;
      } catch (error) {
        if (++this.failures <= REPUTATION.counting.retryAttempts) {
          this.options.log.warn('reputation counting failed; the batch is retried', { error: String(error) });
          return;
        }
        this.failures = 0;
        this.options.log.error('reputation counting failed after every retry; these records are not counted', {
          records: batch.length,
          error: String(error),
        });
      }
      this.buffer.splice(0, batch.length);
    }
  }
}

/** The INSERT record of a new row, as Lambda hands it to the function. */
export function insertRecord(image: Record<string, AttributeValue>, sequence: string, atMs: number): InboxStreamRecord {
  return {
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: sequence,
      ApproximateCreationDateTime: Math.floor(atMs / 1000),
      NewImage: asLambdaSends(image),
    },
  };
}

/** Binary values in base64, as Lambda's JSON event carries them. */
function asLambdaSends(image: Record<string, AttributeValue>): StreamImage {
  const out: StreamImage = {};
  for (const [name, value] of Object.entries(image)) {
    if (value.B !== undefined) out[name] = { B: Buffer.from(value.B).toString('base64') };
    else if (value.S !== undefined) out[name] = { S: value.S };
    else if (value.N !== undefined) out[name] = { N: value.N };
  }
  return out;
}
