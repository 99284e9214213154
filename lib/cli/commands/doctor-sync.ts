/**
 * `ratchet doctor`'s sync check: the sync variables parse as `npm start`, the CLI's sync commands and the
 * worker's cold start parse them (lib/cli/sync-settings.ts), SYNC_QUEUE_URL and SYNC_DEAD_LETTER_QUEUE_URL
 * included. A value they refuse is a failed check worded as they word it, never a probe of a queue that
 * is not one: a name where a URL belongs would be read as some other queue, or not answer at all.
 * Against the local stack, a provider's rate or concurrency that SYNC_PROVIDERS does not list fails too:
 * npm start refuses it (unlistedLimitProblems).
 */
import { unlistedLimitProblems } from '../../../lambdas/core/sync/settings.js';
import type { Context } from '../context.js';
import { cliSyncProviders } from '../sync-fast-path.js';
import { checkSyncSettings } from '../sync-settings.js';
import { SettingError } from '../target.js';
import type { CheckResult } from './doctor.js';
import { SYNC_OFF, SYNC_OFF_ON_AWS } from './sync.js';

export const SYNC_SETTINGS_CHECK = 'sync settings';

/** The check's fix when it throws (a stale local.json's reason is the target check's to tell). */
export const SYNC_SETTINGS_FIX = 'correct the sync variable named (docs/configuration.md)';

/** npm start refuses a provider's limit that SYNC_PROVIDERS does not list: doctor says so before it does. */
export const UNLISTED_LIMIT_FIX = 'add the provider to SYNC_PROVIDERS, or unset the variable (npm start refuses it)';

/** A queue URL's fix names the output it comes from; unset, the CLI finds the queue by name. */
const QUEUE_URL_FIX: Record<string, string> = {
  SYNC_QUEUE_URL: 'set SYNC_QUEUE_URL to the stack output SyncQueueUrl, or unset it (the queue is then found by name)',
  SYNC_DEAD_LETTER_QUEUE_URL:
    'set SYNC_DEAD_LETTER_QUEUE_URL to the stack output SyncDeadLetterQueueUrl, or unset it (found by name)',
};

export function syncSettingsCheck(ctx: Context): CheckResult {
  const check = SYNC_SETTINGS_CHECK;
  let providers: string[];
  try {
    const listed = cliSyncProviders(ctx.env, ctx.target);
    checkSyncSettings(ctx.env, listed, { callsProviders: false });
    providers = listed;
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    const variable = /^[A-Z_]+/.exec(error.message)?.[0] ?? '';
    return { check, status: 'fail', detail: error.message, fix: QUEUE_URL_FIX[variable] ?? SYNC_SETTINGS_FIX };
  }
  // Locally, the variables here are the ones npm start reads; on AWS the stack's list is not the CLI's to read.
  if (ctx.target.kind !== 'aws') {
    const unlisted = unlistedLimitProblems(ctx.env);
    if (unlisted.length > 0) return { check, status: 'fail', detail: unlisted.join('; '), fix: UNLISTED_LIMIT_FIX };
  }
  if (providers.length > 0) return { check, status: 'pass', detail: `syncing to ${providers.join(', ')}` };
  // On AWS the CLI cannot read the stack's providers: "off" may only mean SYNC_PROVIDERS is not set here.
  return { check, status: 'skip', detail: ctx.target.kind === 'aws' ? SYNC_OFF_ON_AWS : SYNC_OFF };
}
