/**
 * `ratchet dlq list|redrive`: the consumer's dead-letter queue (events the consumer failed to apply
 * `maxReceiveCount` times). Listing receives messages and makes them visible again at once (SQS has
 * no peek, so it raises their receive count). Redrive sends them back to the main queue: on AWS with
 * StartMessageMoveTask, elsewhere by hand (send, then delete: a crash duplicates, never loses, and the
 * consumer is idempotent). Both read with long polls and end as `sync status` does
 * (lib/cli/dead-letter-batches.ts): a short poll can answer empty while dead letters wait.
 */
import { Command, InvalidArgumentError } from 'commander';
import { type DeadLetter, SqsDeadLetters } from '../../../lambdas/adapters/sqs-dead-letters.js';
import { parseQueuedEvent } from '../../../lambdas/core/pipeline/consume.js';
import type { Context } from '../context.js';
import { deadLetterBatches } from '../dead-letter-batches.js';
import { show } from '../io.js';
import type { Run } from '../program.js';
import { progressBar } from '../progress.js';

const HIDE_SECONDS = 30;
const MOVE_POLL_MS = 2_000;

function positiveInteger(value: string): number {
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw new InvalidArgumentError('must be a whole number from 1 to 999999');
  return Number(value);
}

export function dlqCommand(ctx: Context, run: Run): Command {
  const command = new Command('dlq').description("the consumer's dead-letter queue (DLQ_URL)");
  const deadLetters = () => {
    const url = ctx.target.deadLetterUrl;
    if (!url) throw new Error('DLQ_URL is not set (take it from the stack outputs)');
    return new SqsDeadLetters(ctx.sqs, url);
  };
  command
    .command('list')
    .description('one JSON line per message: the event, its receive count, and the consumer error when known')
    .option('--limit <n>', 'at most this many messages', positiveInteger, 100)
    .option('--json', 'times as stored (epoch ms) instead of ISO 8601')
    .action(
      run(async (options: { limit: number; json?: boolean }) => {
        const queue = deadLetters();
        const seen = new Map<string, DeadLetter>();
        try {
          for await (const batch of deadLetterBatches(queue, HIDE_SECONDS, seen)) {
            for (const message of batch) {
              seen.set(message.id, message);
              if (seen.size <= options.limit)
                ctx.io.out(show(describe(message), { json: options.json, compact: true }));
            }
            if (seen.size >= options.limit) break;
          }
        } finally {
          for (const message of seen.values()) await queue.release(message).catch(() => undefined);
        }
        return 0;
      }),
    );
  command
    .command('redrive')
    .description('move every message back to the main queue (AWS: StartMessageMoveTask)')
    .option('--dry-run', 'count the messages, move nothing')
    .action(
      run(async (options: { dryRun?: boolean }) => {
        const queue = deadLetters();
        const total = await queue.depth();
        if (options.dryRun) {
          ctx.io.out(`would move ${total} messages back to the main queue`);
          return 0;
        }
        if (ctx.target.kind === 'aws') return moveTask(ctx, queue, total);
        const mainUrl = ctx.target.queueUrl;
        if (!mainUrl) throw new Error('QUEUE_URL is not set (take it from the stack outputs)');
        const progress = progressBar(ctx.io, 'dlq redrive', total);
        let moved = 0;
        try {
          // Each one moved is deleted here, so none is handed out again: nothing is held.
          for await (const batch of deadLetterBatches(queue, HIDE_SECONDS, new Set())) {
            for (const message of batch) {
              await queue.moveTo(message, mainUrl);
              moved++;
              progress.tick();
            }
          }
        } finally {
          progress.done();
        }
        ctx.io.out(`moved ${moved} messages back to the main queue`);
        return 0;
      }),
    );
  return command;
}

/** What an operator needs to decide: which event, how often it failed, and why when we can tell. */
function describe(message: DeadLetter): Record<string, unknown> {
  let event: unknown;
  let error = message.attributes.error;
  try {
    event = parseQueuedEvent(message.body).event;
  } catch (parseError) {
    // The consumer would fail the same way on every attempt: this is the error it logged.
    error ??= (parseError as Error).message;
  }
  return {
    messageId: message.id,
    receiveCount: message.receiveCount,
    sentAt: message.sentAt,
    ...(event ? { event } : { body: message.body.slice(0, 200) }),
    ...(error ? { error } : {}),
  };
}

async function moveTask(ctx: Context, queue: SqsDeadLetters, total: number): Promise<number> {
  await queue.startMoveTask();
  const progress = progressBar(ctx.io, 'dlq redrive', total);
  for (;;) {
    const task = await queue.moveTaskStatus();
    if (task && task.status !== 'RUNNING' && task.status !== 'CANCELLING') {
      progress.done();
      ctx.io.out(
        `move task ${task.status}: moved ${task.moved} of ${task.total ?? total} messages${task.failure ? ` (${task.failure})` : ''}`,
      );
      return task.status === 'COMPLETED' ? 0 : 1;
    }
    progress.update(task?.moved ?? 0);
    await new Promise((r) => setTimeout(r, MOVE_POLL_MS));
  }
}
