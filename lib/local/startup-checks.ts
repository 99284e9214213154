/**
 * What `npm start` checks before it starts anything: the variables only the local runtime reads (the
 * port, names and endpoints, the log level), then everything the handlers read, then each provider
 * built with its credentials (the unsubscribe endpoint's key included), then the inbox lifetime
 * against the signature windows those settings configure. Every problem becomes one line naming its
 * variable; none of them may surface later as a stack trace or as a 503 on the first request.
 */
import { statSync } from 'node:fs';
import { checkNames, type Env, RUNTIME_VARIABLE, readNumber } from '../../lambdas/adapters/environment.js';
import { logLevel } from '../../lambdas/adapters/observability.js';
import { checkConfiguration } from '../../lambdas/adapters/wiring/check.js';
import { checkProviders, formatProblem } from '../../lambdas/adapters/wiring/provider-configuration.js';
import { assertInboxOutlivesWindows } from '../../lambdas/core/inbox-retention.js';
import { unlistedLimitProblems } from '../../lambdas/core/sync/settings.js';
import { UNSUBSCRIBE_PROVIDER } from '../../lambdas/core/unsubscribe/provider.js';
import { applyDemoDefaults, type DemoCredentialSet, peekDemoCredentials } from './demo-credentials.js';
import { StartupError } from './startup-error.js';
import { localSyncTargets } from './sync-targets.js';
import { applyUnsubscribeDemoKey } from './unsubscribe-demo.js';

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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The problems `read` throws, as lines (none when it returns). */
function problemsOf(read: () => unknown): string[] {
  try {
    read();
    return [];
  } catch (error) {
    return [(error as Error).message.split('\n')[0]!];
  }
}

/**
 * Throws one StartupError listing every problem (one line each), or returns quietly. `port` says
 * whether PORT is read at all (a caller may pass its own).
 */
export function assertStartable(settings: Env, read: { port: boolean } = { port: true }): void {
  const problems: string[] = [];
  if (read.port) problems.push(...problemsOf(() => readPort(settings)));
  problems.push(...checkNames(settings));
  const level = settings[RUNTIME_VARIABLE.logLevel];
  problems.push(...problemsOf(() => logLevel(level)).map((p) => `${p}, got ${JSON.stringify(level)}`));
  const configuration = checkConfiguration(settings).map(formatProblem);
  problems.push(...configuration);
  problems.push(...checkProviders([UNSUBSCRIBE_PROVIDER], settings).map(formatProblem));
  // A rate or concurrency for a provider sync does not push to: refused, as cdk synth refuses it in context.
  problems.push(...unlistedLimitProblems(settings));
  const certDir = settings[RUNTIME_VARIABLE.snsCertDir];
  if (certDir && !isDirectory(certDir))
    problems.push(
      `${RUNTIME_VARIABLE.snsCertDir} must be a directory of pinned SNS certificates, got ${JSON.stringify(certDir)} (not a directory)`,
    );
  const baseUrl = settings.UNSUBSCRIBE_BASE_URL;
  if (baseUrl && !/^https?:\/\/[^\s/]+/.test(baseUrl))
    problems.push(`UNSUBSCRIBE_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  // The windows are only meaningful once every setting that shapes them has parsed.
  if (configuration.length === 0) {
    problems.push(...problemsOf(() => assertInboxOutlivesWindows(settings, readNumber(settings, 'INBOX_TTL_DAYS'))));
  }
  problems.push(...checkNames(settings), ...checkConfiguration(settings).map(formatProblem));
  // One line per problem: a variable two parsers read (INBOX_TTL_DAYS: the runtime and SNS's age default) is named once.
  if (problems.length > 0) throw new StartupError([...new Set(problems)].join('\n'));
}

/**
 * Every variable checked before anything is written: the settings as `npm start` will run with them
 * (the demo credentials and unsubscribe key it would use, read or made in memory), the variables, then
 * the sync providers. A bad one leaves the data directory as it was: not created, or unchanged (no
 * lock, no demo files, no store). The start proper checks again under the lock, with what it wrote.
 */
export async function assertStartableBeforeWriting(
  env: Env,
  dataDir: string,
  options: { port: boolean; syncTargets: boolean },
): Promise<{ demoCredentials: DemoCredentialSet }> {
  const demoCredentials = peekDemoCredentials(dataDir);
  const demo = applyDemoDefaults(env, dataDir, demoCredentials, { dryRun: true });
  const { settings } = applyUnsubscribeDemoKey(demo.settings, dataDir, { dryRun: true });
  assertStartable(settings, { port: options.port });
  if (options.syncTargets) await localSyncTargets(settings);
  // What the start proper stores, where none are stored yet: the ones checked, made once.
  return { demoCredentials };
}
