/**
 * `ratchet ses redrive [--dry-run]`: replays the SES dead-letter queue through the edge, whichever way a
 * message got there: SNS gave up on the HTTPS subscription (its dead-letter queue), the SES feed's
 * redrive policy moved it after its last receive, or the feed moved it on its first receive because the
 * edge refused it. Each message is the SNS JSON envelope exactly as SNS sent it; it goes through the same
 * verification (signature, topic allowlist, certificate) with only the age limit waived, because SNS
 * gave up on it or it waited out its receives. A message is deleted only once the edge has admitted it
 * (or found it already stored); anything else stays in the queue, visible again, for the next run.
 *
 * The queue: SES_DEAD_LETTER_QUEUE (a URL, or a name looked up on SQS_ENDPOINT, as `npm start` reads
 * it), SES_DEAD_LETTER_QUEUE_URL (the function's variable), the running local stack's, or
 * ratchet-ses-dead-letters. The events queue the edge sends to: QUEUE_URL, or QUEUE_NAME looked up.
 */

import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { Command } from 'commander';
import { NAME_DEFAULTS, RUNTIME_VARIABLE as V } from '../../../lambdas/adapters/environment.js';
import { type DeadLetter, SqsDeadLetters } from '../../../lambdas/adapters/sqs-dead-letters.js';
import type { WebhookEdge } from '../../../lambdas/core/pipeline/edge.js';
import { snsRequestFromQueuedBody } from '../../../lambdas/core/providers/ses/sns/envelope.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { DEFAULT_RESOURCE_PREFIX } from '../../definitions.js';
import type { Context } from '../context.js';
import { deadLetterBatches } from '../dead-letter-batches.js';
import { buildTargetEdge } from '../edge.js';
import type { Run } from '../program.js';
import { progressBar } from '../progress.js';

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
    .description(
      `replay the SES dead-letter queue (SES_DEAD_LETTER_QUEUE, default ${SES_DEAD_LETTER_QUEUE_DEFAULT}) through the edge`,
    )
    .option('--dry-run', 'count and describe the messages, admit and delete nothing')
    .option('--json', 'the counts as JSON')
    .action(
      run(async (options: { dryRun?: boolean; json?: boolean }) => {
        const queue = new SqsDeadLetters(ctx.sqs, deadLetterQueue(ctx));
        const counts = await replay(ctx, queue, options.dryRun === true);
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

/** A URL or a queue name (looked up on the target's SQS endpoint by SqsDeadLetters). */
function deadLetterQueue(ctx: Context): string {
  return ctx.target.sesDeadLetterQueue || ctx.env[V.sesDeadLetterQueueUrl] || SES_DEAD_LETTER_QUEUE_DEFAULT;
}

/** The request SNS would have sent: the body as is, and the unsigned headers SNS always adds. */
export function snsRequestFor(body: string): WebhookRequest {
  return snsRequestFromQueuedBody(body);
}

/**
 * The one loop for both runs: every visible message once, each hidden while it is handled. A dry run
 * describes and keeps each; a real run admits it and deletes it on success. What is kept is made
 * visible again at the end, for inspection or the next run.
 */
async function replay(ctx: Context, queue: SqsDeadLetters, dryRun: boolean): Promise<RedriveCounts> {
  const counts: RedriveCounts = { messages: 0, admitted: 0, duplicates: 0, ignored: 0, rejected: 0, failed: 0 };
  const edge = dryRun ? undefined : buildTargetEdge(ctx, await eventQueueUrl(ctx));
  const progress = dryRun ? undefined : progressBar(ctx.io, 'ses redrive', await queue.depth());
  const keep = new Map<string, DeadLetter>();
  try {
    // Long polls, ended at the first empty one or at a batch of kept messages handed out again.
    for await (const batch of deadLetterBatches(queue, HIDE_SECONDS, keep)) {
      for (const message of batch) {
        counts.messages++;
        if (!edge || !(await admit(ctx, edge, queue, message, counts))) keep.set(message.id, message);
        if (!edge) ctx.io.err(`message ${message.id}: ${describe(message)}`);
        progress?.tick();
      }
    }
  } finally {
    progress?.done();
    for (const message of keep.values()) await queue.release(message).catch(() => undefined);
  }
  return counts;
}

/** Admits one message and deletes it on success; false when it stays in the queue. */
async function admit(
  ctx: Context,
  edge: WebhookEdge,
  queue: SqsDeadLetters,
  message: DeadLetter,
  counts: RedriveCounts,
): Promise<boolean> {
  const response = await edge.receive('ses', snsRequestFor(message.body), { fromSnsDeadLetterQueue: true });
  if (response.status === 200) {
    const body = response.body as { admitted?: number; duplicates?: number; ignored?: number };
    counts.admitted += body.admitted ?? 0;
    counts.duplicates += body.duplicates ?? 0;
    counts.ignored += body.ignored ?? 0;
    await queue.delete(message);
    return true;
  }
  if (response.status >= 500) counts.failed++;
  else counts.rejected++;
  ctx.io.err(`message ${message.id}: ${response.status} ${String(response.body.error ?? '')} (kept in the queue)`);
  return false;
}

/** Its SNS type, and why the SES feed moved it when it did. */
function describe(message: DeadLetter): string {
  const type = snsRequestFor(message.body).headers['x-amz-sns-message-type'] || 'not an SNS envelope';
  const { source, error } = message.attributes;
  return source && error ? `${type} (moved by the ${source}: ${error})` : type;
}

/** QUEUE_URL (or the local stack's), else QUEUE_NAME (as `npm start` reads it; default ratchet-events on SQS_ENDPOINT) looked up. */
async function eventQueueUrl(ctx: Context): Promise<string | undefined> {
  if (ctx.target.queueUrl) return ctx.target.queueUrl;
  // Against AWS itself only when asked by name: the default name is a local stack's.
  if (!ctx.target.sqsEndpoint && !ctx.env[V.queueName]) return undefined;
  const name = ctx.env[V.queueName] || NAME_DEFAULTS[V.queueName];
  return (await ctx.sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
}
