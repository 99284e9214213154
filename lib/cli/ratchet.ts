/**
 * `npx ratchet <command>`: the operator CLI. The complete table of commands, flags and exit codes is
 * docs/cli.md; `npx ratchet <command> --help` prints each one's usage.
 *
 * Exit codes: 0 success (and help), 1 failure (the target, the store), 2 usage or input error (an
 * unknown command or option, a malformed address, a file in another format). Times print as ISO 8601;
 * `--json` keeps the stored epoch values.
 */
import { Command } from 'commander';
import { consoleCommand } from '../console/command.js';
import { dlqCommand } from './commands/dlq.js';
import { doctorCommand } from './commands/doctor.js';
import { inboxCommand } from './commands/inbox.js';
import { reputationCommand } from './commands/reputation.js';
import { sesCommand } from './commands/ses.js';
import { suppressionsCommand } from './commands/suppressions.js';
import { syncCommand } from './commands/sync.js';
import { Context, type Env } from './context.js';
import { type Io, processIo } from './io.js';
import { execute, runner } from './program.js';
import { unsubscribeLink } from './unsubscribe-link.js';
import { packageVersion } from './version.js';

export function ratchetProgram(ctx: Context, state: { code: number }): Command {
  const run = runner(ctx, state);
  return new Command('ratchet')
    .description(
      'Operate Ratchet. Target: DYNAMODB_ENDPOINT if set, else a running `npm start` (.data/local.json), else AWS.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .addCommand(suppressionsCommand(ctx, run))
    .addCommand(inboxCommand(ctx, run))
    .addCommand(sesCommand(ctx, run))
    .addCommand(dlqCommand(ctx, run))
    .addCommand(doctorCommand(ctx, run))
    .addCommand(syncCommand(ctx, run))
    .addCommand(reputationCommand(ctx, run))
    .addCommand(consoleCommand(ctx, run))
    .addCommand(
      new Command('unsubscribe-link')
        .description('print a one-click unsubscribe URL (RFC 8058), alone on stdout')
        .argument('<email>', 'the recipient')
        .option('--topic <topic>', 'the topic to leave (default: every subscription mail, "*")')
        .action(
          run(async (email: string, options: { topic?: string }) => {
            await unsubscribeLink(ctx.address(email), options, {
              env: ctx.env,
              out: (line) => ctx.io.out(line),
              now: ctx.now(),
            });
            return 0;
          }),
        ),
    );
}

export async function ratchetCommand(
  argv: string[],
  env: Env,
  io: Io = processIo,
  now: () => number = Date.now,
): Promise<number> {
  const ctx = new Context(env, io, now);
  const state = { code: 0 };
  return execute(ratchetProgram(ctx, state), argv, ctx, state);
}
