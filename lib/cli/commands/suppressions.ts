/** `ratchet suppressions get|list|add|reactivate`: read the table, and the two audited manual actions. */
import { Command, Option } from 'commander';
import { NO_TOPIC_ALIASES, resolveTopic, topicsUnderAliases } from '../../../lambdas/core/topics.js';
import type { Context } from '../context.js';
import { show } from '../io.js';
import type { Run } from '../program.js';
import { addTransferCommands } from './transfer.js';

export const STATUSES = ['suppressed', 'active'] as const;

export function suppressionsCommand(ctx: Context, run: Run): Command {
  const command = new Command('suppressions').description('read and change the suppression list');
  command
    .command('get')
    .description('print the record for an address; with none, say "no record: may send" (null with --json), exit 0')
    .argument('<email>', 'the address (normalized: trimmed, lower-cased)')
    .option('--json', 'times as stored (epoch ms) instead of ISO 8601')
    .action(
      run(async (email: string, options: { json?: boolean }) => {
        const address = ctx.address(email);
        const record = await ctx.suppressions().get(address);
        if (!record) {
          // No record is an answer, not a failure: the address may be sent to.
          ctx.io.out(options.json ? 'null' : `no record: may send (${address}, ${ctx.target.description})`);
          return 0;
        }
        ctx.io.out(show(record, options));
        return 0;
      }),
    );
  command
    .command('list')
    .description('one JSON record per line')
    .addOption(new Option('--status <status>', 'only records with this status').choices(STATUSES))
    .option('--topic <topic>', 'only addresses unsubscribed from this topic')
    .option('--json', 'times as stored (epoch ms) instead of ISO 8601')
    .action(
      run(async (options: { status?: (typeof STATUSES)[number]; topic?: string; json?: boolean }) => {
        // As the client reads it: through TOPIC_ALIASES, an opt-out stored before its alias was set included.
        const aliases = ctx.policy().topicAliases ?? NO_TOPIC_ALIASES;
        const topic = options.topic === undefined ? undefined : resolveTopic(options.topic, aliases);
        await ctx.suppressions().scan({ status: options.status }, (records) => {
          for (const record of records) {
            if (topic !== undefined && topicsUnderAliases(record.topics, aliases)[topic]?.status !== 'unsubscribed')
              continue;
            ctx.io.out(show(record, { ...options, compact: true }));
          }
        });
        return 0;
      }),
    );
  for (const verb of ['add', 'reactivate'] as const) {
    command
      .command(verb)
      .description(
        verb === 'add'
          ? 'suppress an address by hand (reason manual; audited)'
          : 'the only way out of suppression: evidence dated before now stops counting (audited)',
      )
      .argument('<email>', 'the address')
      .requiredOption('--reason <text>', 'why: manual actions are audited')
      .option(
        '--topic <topic>',
        verb === 'add' ? 'opt out of this topic only (status is untouched)' : 'restore this topic only',
      )
      .option('--actor <name>', 'who (default $USER, else the OS account)')
      .option('--json', 'times as stored (epoch ms) instead of ISO 8601')
      .action(
        run(async (email: string, options: { reason: string; topic?: string; actor?: string; json?: boolean }) => {
          const address = ctx.address(email);
          const action = { actor: ctx.actor(options.actor), reason: options.reason, at: ctx.now() };
          const store = ctx.suppressions();
          const { topic } = options;
          const result =
            topic !== undefined
              ? verb === 'add'
                ? await store.unsubscribeTopic(address, topic, action)
                : await store.resubscribeTopic(address, topic, action)
              : verb === 'add'
                ? await store.suppress(address, action)
                : await store.reactivate(address, action);
          ctx.io.out(show({ effect: result.effect, record: result.record }, options));
          return 0;
        }),
      );
  }
  addTransferCommands(command, ctx, run);
  return command;
}
