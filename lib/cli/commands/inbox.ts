/** `ratchet inbox get|replay`: the stored row of one admitted event, and re-sending it to the queue. */
import { Command } from 'commander';
import { inboxKey } from '../../../lambdas/adapters/dynamodb-inbox.js';
import { SqsEventQueue } from '../../../lambdas/adapters/sqs-queue.js';
import type { Context } from '../context.js';
import { show } from '../io.js';
import type { Run } from '../program.js';

export function inboxCommand(ctx: Context, run: Run): Command {
  const command = new Command('inbox').description('stored events (raw payloads, dedup keys)');
  const load = async (provider: string, eventId: string) => {
    const row = await ctx.inbox().get(inboxKey(provider, eventId));
    if (!row) ctx.io.err(`no inbox row ${inboxKey(provider, eventId)} (${ctx.target.description})`);
    return row;
  };
  command
    .command('get')
    .description('the stored row, raw payload decompressed')
    .argument('<provider>')
    .argument('<eventId>')
    .option('--json', 'times as stored (epoch ms/s) instead of ISO 8601')
    .action(
      run(async (provider: string, eventId: string, options: { json?: boolean }) => {
        const row = await load(provider, eventId);
        if (!row) return 1;
        // The adapter already decodes the row: raw payload inline and decompressed, events decoded.
        ctx.io.out(show(row, options));
        return 0;
      }),
    );
  command
    .command('replay')
    .description('re-send a stored event to the queue (the consumer applies it idempotently)')
    .argument('<provider>')
    .argument('<eventId>')
    .action(
      run(async (provider: string, eventId: string) => {
        const queueUrl = ctx.target.queueUrl;
        if (!queueUrl) {
          ctx.io.err('error: QUEUE_URL is not set (take it from the stack outputs)');
          return 2;
        }
        const row = await load(provider, eventId);
        if (!row) return 1;
        await new SqsEventQueue(ctx.sqs, () => queueUrl).send(row.events.map((event) => ({ pk: row.pk, event })));
        ctx.io.out(`re-sent ${row.pk}`);
        return 0;
      }),
    );
  return command;
}
