/**
 * One start-up contract: every variable the local runtime reads has a bad value that `npm start`
 * refuses before it starts anything, in one line naming the variable. The settings are built as
 * `npm start` builds them (demo credentials for every provider, the demo unsubscribe key), so each
 * provider's own settings are checked too. A completeness check keeps the table honest: a variable
 * added to RUNTIME_VARIABLE or to a provider's definition fails here until it has a row (or a reason).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNTIME_VARIABLE } from '../../../lambdas/adapters/environment.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';
import { SOFT_BOUNCE_VARIABLES } from '../../../lambdas/core/suppression/index.js';
import { TOPIC_ALIASES_VARIABLE } from '../../../lambdas/core/topics.js';
import { UNSUBSCRIBE_PROVIDER } from '../../../lambdas/core/unsubscribe/provider.js';
import { applyDemoDefaults, ensureDemoCredentials } from '../../../lib/local/demo-credentials.js';
import { assertStartable } from '../../../lib/local/startup-checks.js';
import { StartupError } from '../../../lib/local/startup-error.js';
import { applyUnsubscribeDemoKey } from '../../../lib/local/unsubscribe-demo.js';
import { BAD_VALUES, NOT_REFUSABLE } from '../../support/runtime-variables.js';

const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-contract-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The settings `npm start` checks for this environment. */
function startSettings(env: Record<string, string>, dir = dataDir): Record<string, string | undefined> {
  const demo = applyDemoDefaults(env, dir, ensureDemoCredentials(dir));
  return applyUnsubscribeDemoKey(demo.settings, dir).settings;
}

function problems(env: Record<string, string>): string[] {
  try {
    assertStartable(startSettings(env));
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(StartupError);
    return (error as Error).message.split('\n');
  }
}

describe('the start-up contract', () => {
  it('every variable the runtime reads is in the table, or says why it cannot be refused', () => {
    const read = new Set<string>([
      ...Object.values(RUNTIME_VARIABLE),
      ...Object.values(SOFT_BOUNCE_VARIABLES),
      TOPIC_ALIASES_VARIABLE,
      'UNSUBSCRIBE_BASE_URL',
      ...[...PROVIDERS, UNSUBSCRIBE_PROVIDER].flatMap((p) => [
        p.credentialsVariable,
        ...(p.secretArnVariable ? [p.secretArnVariable] : []),
        ...(p.settings ?? []).map((s) => s.variable),
      ]),
    ]);
    const covered = new Set([...Object.keys(BAD_VALUES), ...Object.keys(NOT_REFUSABLE)]);
    expect([...read].filter((v) => !covered.has(v))).toEqual([]);
    expect([...covered].filter((v) => !read.has(v))).toEqual([]);
  });

  it('the demo settings start cleanly', () => {
    expect(problems({})).toEqual([]);
  });

  it.each(Object.entries(BAD_VALUES))('%s=%j is refused in one line naming it', (variable, value) => {
    const lines = problems({ [variable]: value });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    expect(lines[0]).not.toMatch(/^\s+at /);
  });

  it('LOG_LEVEL takes the seven levels the logger has, in any case', () => {
    for (const level of ['trace', 'DEBUG', 'info', 'Warn', 'ERROR', 'critical', 'SILENT'])
      expect(problems({ LOG_LEVEL: level })).toEqual([]);
    expect(problems({ LOG_LEVEL: 'verbose' })).toEqual([
      'LOG_LEVEL must be one of DEBUG, INFO, WARN, ERROR, SILENT, CRITICAL, TRACE, got "verbose"',
    ]);
  });
});
