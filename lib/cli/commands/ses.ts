/**
 * `ratchet ses redrive [--dry-run]`: replays the SNS subscription's dead-letter queue through the edge.
 * Each message there is the SNS JSON envelope exactly as SNS would have POSTed it; it goes through the
 * same verification (signature, topic allowlist, certificate) with only the age limit waived, because
 * the queue policy proves SNS put it there. A message is deleted only once the edge has admitted it
 * (or found it already stored); anything else stays in the queue, visible again, for the next run.
 */
import { Command } from 'commander';
import { SqsDeadLetters, type DeadLetter } from '../../../lambdas/adapters/sqs-dead-letters.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { DEFAULT_RESOURCE_PREFIX } from '../../definitions.js';
import type { Context } from '../context.js';
import { buildTargetEdge } from '../edge.js';
import { progressBar } from '../progress.js';
import type { Run } from '../program.js';

export const SES_DEAD_LETTER_QUEUE_DEFAULT = `${DEFAULT_RESOURCE_PREFIX}-ses-dead-letters`;
/** Long enough to verify (a certificate fetch) and admit one batch; released early on anything but success. */
const HIDE_SECONDS = 60;

export interface RedriveCounts {
  messages: number;
  admitted: number;
  duplicates: number;
  ignored: number;
  rejected: number;
  failed: number;
}

export function sesCommand(ctx: Context, run: Run): Command {
  const command = new Command('ses').description('Amazon SES (through SNS)');
  command
    .command('redrive')
    .description(`replay the SNS dead-letter queue (SES_DEAD_LETTER_QUEUE, default ${SES_DEAD_LETTER_QUEUE_DEFAULT}) through the edge`)
    .option('--dry-run', 'count and describe the messages, admit and delete nothing')
    .option('--json', 'the counts as JSON')
    .action(
      run(async (options: { dryRun?: boolean; json?: boolean }) => {
        const queue = new SqsDeadLetters(ctx.sqs, ctx.target.sesDeadLetterQueue ?? SES_DEAD_LETTER_QUEUE_DEFAULT);
        const counts = options.dryRun ? await dryRun(ctx, queue) : await redrive(ctx, queue);
        ctx.io.out(
          options.json
            ? JSON.stringify({ dryRun: options.dryRun === true, ...counts })
            : `${options.dryRun ? 'would replay' : 'replayed'} ${counts.messages} messages: admitted ${counts.admitted}, ` +
                `duplicates ${counts.duplicates}, ignored ${counts.ignored}, rejected ${counts.rejected}, failed ${counts.failed}`,
        );
        return counts.rejected + counts.failed > 0 ? 1 : 0;
      }),
    );
  return command;
}

/** The request SNS would have sent: the body as is, and the unsigned headers SNS always adds. */
export function snsRequestFor(body: string): WebhookRequest {
  let envelope: Record<string, unknown> = {};
  try {
    envelope = JSON.parse(body) as Record<string, unknown>;
  } catch {
    // Not JSON: the edge rejects it as malformed, like the HTTP route would.
  }
  const header = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    body: Buffer.from(body, 'utf8'),
    headers: {
      'content-type': 'text/plain; charset=UTF-8',
      'x-amz-sns-message-type': header(envelope.Type),
      'x-amz-sns-message-id': header(envelope.MessageId),
      'x-amz-sns-topic-arn': header(envelope.TopicArn),
    },
  };
}

async function redrive(ctx: Context, queue: SqsDeadLetters): Promise<RedriveCounts> {
  const edge = buildTargetEdge(ctx);
  const counts: RedriveCounts = { messages: 0, admitted: 0, duplicates: 0, ignored: 0, rejected: 0, failed: 0 };
  const progress = progressBar(ctx.io, 'ses redrive', await queue.depth());
  const keep: DeadLetter[] = [];
  try {
    for (let batch = await queue.receive(HIDE_SECONDS); batch.length > 0; batch = await queue.receive(HIDE_SECONDS)) {
      for (const message of batch) {
        counts.messages++;
        const response = await edge.receive('ses', snsRequestFor(message.body), { fromSnsDeadLetterQueue: true });
        if (response.status === 200) {
          const body = response.body as { admitted?: number; duplicates?: number; ignored?: number };
          counts.admitted += body.admitted ?? 0;
          counts.duplicates += body.duplicates ?? 0;
          counts.ignored += body.ignored ?? 0;
          await queue.delete(message);
        } else {
          if (response.status >= 500) counts.failed++;
          else counts.rejected++;
          ctx.io.err(`message ${message.id}: ${response.status} ${String(response.body.error ?? '')} (kept in the queue)`);
          keep.push(message);
        }
        progress.tick();
      }
    }
  } finally {
    progress.done();
    // Kept messages were hidden while we read on; make them visible again for inspection or the next run.
    for (const message of keep) await queue.release(message).catch(() => undefined);
  }
  return counts;
}

async function dryRun(ctx: Context, queue: SqsDeadLetters): Promise<RedriveCounts> {
  const counts: RedriveCounts = { messages: 0, admitted: 0, duplicates: 0, ignored: 0, rejected: 0, failed: 0 };
  const seen: DeadLetter[] = [];
  try {
    for (let batch = await queue.receive(HIDE_SECONDS); batch.length > 0; batch = await queue.receive(HIDE_SECONDS)) {
      for (const message of batch) {
        counts.messages++;
        seen.push(message);
        const request = snsRequestFor(message.body);
        ctx.io.err(`message ${message.id}: ${request.headers['x-amz-sns-message-type'] || 'not an SNS envelope'}`);
      }
    }
  } finally {
    for (const message of seen) await queue.release(message).catch(() => undefined);
  }
  return counts;
}
