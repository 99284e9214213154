/**
 * `npm run ratchet -- <command>`: the operator CLI (README "Operator CLI").
 *
 *   suppressions get <email>                        print the record as JSON
 *   suppressions list [--status suppressed|active]  one JSON record per line
 *   suppressions add <email> --reason <text>        manual suppression (audited)
 *   suppressions reactivate <email> --reason <text> the only way out of suppression (audited)
 *   inbox get <provider> <eventId>                  the stored row, raw payload decompressed
 *   inbox replay <provider> <eventId>               re-send a stored event to the queue
 *   dlq list [--limit n]                            the consumer's dead letters: event, receive count, error
 *   dlq redrive [--dry-run]                         back to the main queue (AWS: StartMessageMoveTask)
 *   doctor [--json]                                 pass/warn/fail per check, with the fix; exit 1 on any fail
 *   ses redrive [--dry-run]                         replay the SNS dead-letter queue through the edge
 *   sync status [--json]                            per provider: pending, failed, lastSuccessAt
 *   sync retry                                      redrive the sync dead letters
 *   sync reconcile [--provider p] [--apply] [--json] drift between Ratchet and each provider's lists
 *
 * Times print as ISO 8601; `--json` keeps the stored epoch values. `--actor` defaults to $USER.
 */
import { Command } from 'commander';
import { dlqCommand } from './commands/dlq.js';
import { doctorCommand } from './commands/doctor.js';
import { inboxCommand } from './commands/inbox.js';
import { sesCommand } from './commands/ses.js';
import { suppressionsCommand } from './commands/suppressions.js';
import { syncCommand } from './commands/sync.js';
import { Context, type Env } from './context.js';
import { processIo, type Io } from './io.js';
import { execute, runner } from './program.js';
import { unsubscribeLink } from './unsubscribe-link.js';

export function ratchetProgram(ctx: Context, state: { code: number }): Command {
  const run = runner(ctx, state);
  return new Command('ratchet')
    .description(
      'Operate Ratchet. Target: DYNAMODB_ENDPOINT if set, else a running `npm start` (.data/local.json), else AWS.',
    )
    .addCommand(suppressionsCommand(ctx, run))
    .addCommand(inboxCommand(ctx, run))
    .addCommand(sesCommand(ctx, run))
    .addCommand(dlqCommand(ctx, run))
    .addCommand(doctorCommand(ctx, run))
    .addCommand(syncCommand(ctx, run))
    .addCommand(
      new Command('unsubscribe-link')
        .description('print a one-click unsubscribe URL (RFC 8058), alone on stdout')
        .argument('<email>', 'the recipient')
        .option('--topic <topic>', 'the topic to leave (default: every subscription mail, "*")')
        .action(
          run(async (email: string, options: { topic?: string }) => {
            await unsubscribeLink(email, options, { env: ctx.env, out: (line) => ctx.io.out(line), now: ctx.now() });
            return 0;
          }),
        ),
    );
}

export async function ratchetCommand(argv: string[], env: Env, io: Io = processIo, now: () => number = Date.now): Promise<number> {
  const ctx = new Context(env, io, now);
  const state = { code: 0 };
  return execute(ratchetProgram(ctx, state), argv, ctx, state);
}
