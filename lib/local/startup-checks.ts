/**
 * What `npm start` checks before it starts anything: the variables only the local runtime reads (the
 * port, the sweep interval, names and endpoints), then everything the handlers read, then each
 * provider built with its credentials. Every problem becomes one line naming its variable.
 */
import { checkConfiguration } from '../../lambdas/adapters/wiring/check.js';
import { formatProblem } from '../../lambdas/adapters/wiring/provider-configuration.js';
import { StartupError } from './startup-error.js';

type Env = Readonly<Record<string, string | undefined>>;

const MAX_PORT = 65_535;

/** PORT: a whole number 0..65535 (0 picks a free port); unset or blank means 3000. */
export function readPort(env: Env): number {
  const raw = env.PORT?.trim();
  if (raw === undefined || raw === '') return 3000;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > MAX_PORT) {
    throw new StartupError(`PORT must be a whole number from 0 to ${MAX_PORT} (0 picks a free port), got ${JSON.stringify(env.PORT)}`);
  }
  return Number(raw);
}

/** SWEEP_INTERVAL_SECONDS: a positive number of seconds (decimals allowed); unset means 60. */
export function readSweepIntervalMs(env: Env): number {
  const raw = env.SWEEP_INTERVAL_SECONDS?.trim();
  if (raw === undefined || raw === '') return 60_000;
  const seconds = Number(raw);
  if (!/^[0-9]+(?:\.[0-9]+)?$/.test(raw) || !(seconds > 0) || seconds > 86_400) {
    throw new StartupError(`SWEEP_INTERVAL_SECONDS must be a number of seconds above 0 and at most 86400, got ${JSON.stringify(env.SWEEP_INTERVAL_SECONDS)}`);
  }
  return seconds * 1000;
}

/** The names the runtime creates resources under, and the endpoints it would use instead of its emulators. */
function checkLocalNames(env: Env): string[] {
  const problems: string[] = [];
  for (const name of ['INBOX_TABLE', 'SUPPRESSION_TABLE'] as const) {
    const value = env[name];
    if (value !== undefined && !/^[A-Za-z0-9_.-]{3,255}$/.test(value)) {
      problems.push(`${name} must be 3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name), got ${JSON.stringify(value)}`);
    }
  }
  const queue = env.QUEUE_NAME;
  if (queue !== undefined && queue !== '' && !/^[A-Za-z0-9_-]{1,76}$/.test(queue)) {
    problems.push(`QUEUE_NAME must be 1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dlq suffix), got ${JSON.stringify(queue)}`);
  }
  for (const name of ['DYNAMODB_ENDPOINT', 'SQS_ENDPOINT'] as const) {
    const value = env[name];
    if (value && !/^https?:\/\/[^\s/]+/.test(value)) problems.push(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return problems;
}

/**
 * Throws one StartupError listing every problem (one line each), or returns quietly. `port` and
 * `sweepInterval` say whether PORT and SWEEP_INTERVAL_SECONDS are read at all (a caller may pass its own).
 */
export function assertStartable(settings: Env, read: { port: boolean; sweepInterval: boolean } = { port: true, sweepInterval: true }): void {
  const problems: string[] = [];
  for (const [wanted, check] of [
    [read.port, readPort],
    [read.sweepInterval, readSweepIntervalMs],
  ] as const) {
    try {
      if (wanted) check(settings);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  problems.push(...checkLocalNames(settings), ...checkConfiguration(settings).map(formatProblem));
  if (problems.length > 0) throw new StartupError(problems.join('\n'));
}
