/**
 * `ratchet doctor`'s sync check: the sync variables parse as `npm start`, the CLI's sync commands and the
 * worker's cold start parse them (lib/cli/sync-settings.ts), SYNC_QUEUE_URL and SYNC_DEAD_LETTER_QUEUE_URL
 * included. A value they refuse is a failed check worded as they word it, never a probe of a queue that
 * is not one: a name where a URL belongs would be read as some other queue, or not answer at all.
 */
import type { Context } from '../context.js';
import { cliSyncProviders } from '../sync-fast-path.js';
import { checkSyncSettings } from '../sync-settings.js';
import { SettingError } from '../target.js';
import type { CheckResult } from './doctor.js';

export const SYNC_SETTINGS_CHECK = 'sync settings';

export const SYNC_SETTINGS_FIX =
  'correct the sync variable named: docs/configuration.md, the stack outputs SyncQueueUrl and SyncDeadLetterQueueUrl';

export function syncSettingsCheck(ctx: Context): CheckResult {
  const check = SYNC_SETTINGS_CHECK;
  let providers: string[];
  try {
    const listed = cliSyncProviders(ctx.env, ctx.target);
    checkSyncSettings(ctx.env, listed, { callsProviders: false });
    providers = listed;
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    return { check, status: 'fail', detail: error.message, fix: SYNC_SETTINGS_FIX };
  }
  if (providers.length > 0) return { check, status: 'pass', detail: `syncing to ${providers.join(', ')}` };
  return { check, status: 'skip', detail: 'sync is off (no SYNC_PROVIDERS)' };
}
