/**
 * `ratchet console [--port n]`: the operator console in a browser, for the same target as every other
 * command (the local stack, DYNAMODB_ENDPOINT, or AWS with the operator's credentials). It runs on the
 * operator's machine only: 127.0.0.1, a random port unless --port, and a URL with a one-time token.
 * Runs until SIGINT or SIGTERM.
 */
import { userInfo } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import type { Context } from '../cli/context.js';
import type { Run } from '../cli/program.js';
import { startConsole } from './server.js';

function port(value: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65_535)
    throw new InvalidArgumentError('must be a port from 0 to 65535');
  return Number(value);
}

/** The OS account, which every action is audited as (not $USER, which any shell can set). */
export function operatorAccount(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for this uid (some containers).
    return 'unknown';
  }
}

export function consoleCommand(ctx: Context, run: Run): Command {
  return new Command('console')
    .description('serve the operator console on 127.0.0.1 (random port) and print its URL, with a one-time token')
    .option('--port <n>', 'listen on this port instead of a random one', port)
    .action(
      run(async (options: { port?: number }) => {
        ctx.target; // An unusable target (a stale local.json) fails here, with its fix, before anything listens.
        await ctx.resolveQueues();
        const running = await startConsole(
          { ctx, actor: operatorAccount(), now: ctx.now },
          { port: options.port },
        ).catch((error: NodeJS.ErrnoException) => {
          // Not the target's failure: say so plainly rather than blame the stack.
          throw new Error(
            `cannot listen on 127.0.0.1:${options.port ?? 0} (${error.code ?? error.message}): choose another --port`,
          );
        });
        ctx.io.out(`console for ${ctx.target.description}`);
        ctx.io.out(`open: ${running.url}`);
        ctx.io.out('(the link carries a token: do not share it; stop with Ctrl-C)');
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        await running.close();
        return 0;
      }),
    );
}
