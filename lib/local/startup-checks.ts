/**
 * What `npm start` checks before it starts anything: the variables only the local runtime reads (the
 * port, names and endpoints), then everything the handlers read, then each
 * provider built with its credentials. Every problem becomes one line naming its variable.
 */
import { checkConfiguration } from '../../lambdas/adapters/wiring/check.js';
import { formatProblem } from '../../lambdas/adapters/wiring/provider-configuration.js';
import { checkNames, readNumber, type Env } from '../../lambdas/adapters/environment.js';
import { StartupError } from './startup-error.js';

/** PORT: a whole number 0..65535 (0 picks a free port); unset or blank means 3000. */
export function readPort(env: Env): number {
  return asStartupError(() => readNumber(env, 'PORT'));
}

function asStartupError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
}

/**
 * Throws one StartupError listing every problem (one line each), or returns quietly. `port` says
 * whether PORT is read at all (a caller may pass its own).
 */
export function assertStartable(settings: Env, read: { port: boolean } = { port: true }): void {
  const problems: string[] = [];
  try {
    if (read.port) readPort(settings);
  } catch (error) {
    problems.push((error as Error).message);
  }
  problems.push(...checkNames(settings), ...checkConfiguration(settings).map(formatProblem));
  // One line per problem: a variable two parsers read (INBOX_TTL_DAYS: the runtime and SNS's age default) is named once.
  if (problems.length > 0) throw new StartupError([...new Set(problems)].join('\n'));
}
