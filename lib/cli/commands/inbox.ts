/**
 * `ratchet inbox list|get|replay`: the newest stored rows (to find an event id), the stored row of one
 * admitted event, and re-sending it to the queue.
 */
import { Command, InvalidArgumentError } from 'commander';
import { inboxKey } from '../../../lambdas/adapters/dynamodb-inbox.js';
import { SqsEventQueue } from '../../../lambdas/adapters/sqs-queue.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';
import { UNSUBSCRIBE_PROVIDER } from '../../../lambdas/core/unsubscribe/provider.js';
import type { Context } from '../context.js';
import { InputError } from '../context.js';
import { show } from '../io.js';
import type { Run } from '../program.js';

export function inboxCommand(ctx: Context, run: Run): Command {
  const command = new Command('inbox').description('stored events (raw payloads, dedup keys)');
  const load = async (provider: string, eventId: string) => {
    knownProvider(provider);
    const row = await ctx.inbox().get(inboxKey(provider, eventId));
    if (!row) ctx.io.err(`no inbox row ${inboxKey(provider, eventId)} (${ctx.target.description})`);
    return row;
  };
  command
    .command('list')
    .description(
      'the newest stored rows first, one JSON line each: key, receivedAt and the events (eventId, kind, recipient)',
    )
    .option('--provider <provider>', 'only this provider')
    .option('--since <time>', 'only rows received at or after this ISO 8601 time', isoTime)
    .option('--limit <n>', 'at most this many rows', positiveInteger, 20)
    .option('--json', 'times as stored (epoch ms/s) instead of ISO 8601')
    .action(
      run(async (options: { provider?: string; since?: number; limit: number; json?: boolean }) => {
        if (options.provider !== undefined) knownProvider(options.provider);
        const rows = await ctx
          .inbox()
          .listNewest({ limit: options.limit, nowMs: ctx.now(), provider: options.provider, sinceMs: options.since });
        for (const row of rows) {
          const events = row.events.map((e) => ({
            eventId: e.eventId,
            kind: e.kind,
            recipient: e.recipient,
            occurredAt: e.occurredAt,
            ...(e.topic ? { topic: e.topic } : {}),
          }));
          ctx.io.out(
            show(
              { key: row.pk, receivedAt: row.receivedAt, expiresAt: row.expiresAt, events },
              { json: options.json, compact: true },
            ),
          );
        }
        return 0;
      }),
    );
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

/** Every route that stores inbox rows: the providers, and the unsubscribe endpoint. */
const ROW_PROVIDERS = [...PROVIDERS.map((p) => p.name), UNSUBSCRIBE_PROVIDER.name];

function knownProvider(name: string): void {
  if (!ROW_PROVIDERS.includes(name))
    throw new InputError(`unknown provider ${JSON.stringify(name)}: one of ${ROW_PROVIDERS.join(', ')}`);
}

function positiveInteger(value: string): number {
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw new InvalidArgumentError('must be a whole number from 1 to 999999');
  return Number(value);
}

function isoTime(value: string): number {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(ms))
    throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z');
  return ms;
}
