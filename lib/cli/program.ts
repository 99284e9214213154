/**
 * Runs a commander program in-process and turns every outcome into an exit code:
 * 0 for success and for help (`--help` and `help` at every level); 2 for usage errors (unknown
 * command or option, missing or extra argument, a value outside its choices), each one line on stderr;
 * 1 for failures, with the reason.
 */
import { Command, CommanderError } from 'commander';
import type { Context } from './context.js';

/** Wraps an action so its returned exit code reaches the caller and failures become one line. */
export type Run = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;

export function runner(ctx: Context, state: { code: number }): Run {
  return (action) =>
    async (...args) => {
      try {
        state.code = await action(...args);
      } catch (error) {
        state.code = ctx.fail(error);
      }
    };
}

/** Applies the shared settings to a command and all its subcommands (commander copies them only at creation). */
export function configure(command: Command, ctx: Context): Command {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => ctx.io.out(text.replace(/\n$/, '')),
      writeErr: (text) => ctx.io.err(text.replace(/\n$/, '')),
    });
  for (const sub of command.commands) configure(sub, ctx);
  return command;
}

/** The commands that read or send to a queue. */
const QUEUE_COMMANDS = new Set(['dlq', 'ses', 'inbox', 'doctor']);

export async function execute(
  program: Command,
  argv: string[],
  ctx: Context,
  state: { code: number },
): Promise<number> {
  configure(program, ctx);
  program.hook('preAction', async (_self, action) => {
    const names: string[] = [];
    for (let c: Command | null = action; c && c !== program; c = c.parent) names.unshift(c.name());
    ctx.action = names.join(' ');
    // Only commands that use a queue look its name up (the others must not need SQS at all).
    if (QUEUE_COMMANDS.has(names[0] ?? '')) await ctx.resolveQueues();
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    return ctx.fail(error);
  } finally {
    ctx.close();
  }
}
