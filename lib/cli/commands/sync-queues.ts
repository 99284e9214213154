/**
 * The sync queue and its dead letters for `ratchet sync status|retry`, or one line saying why they
 * cannot be used: which queue was looked for, where, and what went wrong (the endpoint refused, no such
 * queue), then the variable that names it. A lookup that failed is never a silent "no dead letters".
 */
import { SqsDeadLetters } from '../../../lambdas/adapters/sqs-dead-letters.js';
import type { Context } from '../context.js';
import { sqsWhere, syncQueueUrls } from '../sync-fast-path.js';
import { rootCause } from '../target.js';

export type Located<T> = { ok: true; value: T } | { ok: false; problem: string };

const NAMES = {
  queue: { what: 'the sync queue', variable: 'SYNC_QUEUE_URL', output: 'SyncQueueUrl' },
  deadLetters: {
    what: 'the sync dead letters',
    variable: 'SYNC_DEAD_LETTER_QUEUE_URL',
    output: 'SyncDeadLetterQueueUrl',
  },
} as const;

async function locate(ctx: Context, which: keyof typeof NAMES): Promise<Located<string>> {
  const urls = syncQueueUrls(ctx.target, () => ctx.sqs);
  const url = which === 'queue' ? urls.queueUrl : urls.deadLetterUrl;
  const { what, variable, output } = NAMES[which];
  const fix = `set ${variable} (stack output ${output})`;
  if (!url)
    return { ok: false, problem: `${what} could not be found (none is named for ${ctx.target.description}): ${fix}` };
  try {
    return { ok: true, value: await url() };
  } catch (error) {
    const name = which === 'queue' ? ctx.target.syncQueueName : urls.deadLetterName;
    return {
      ok: false,
      problem: `${what} could not be found (${name ?? 'the queue'} on ${sqsWhere(ctx.target)}: ${rootCause(error).split('\n')[0]}): ${fix}`,
    };
  }
}

export function syncQueueUrl(ctx: Context): Promise<Located<string>> {
  return locate(ctx, 'queue');
}

export async function syncDeadLetters(ctx: Context): Promise<Located<SqsDeadLetters>> {
  const url = await locate(ctx, 'deadLetters');
  return url.ok ? { ok: true, value: new SqsDeadLetters(ctx.sqs, url.value) } : url;
}
