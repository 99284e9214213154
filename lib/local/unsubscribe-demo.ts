/**
 * `npm start` with `UNSUBSCRIBE_SECRETS` unset: a demo key generated once under `.data/` (owner-only,
 * never committed), so unsubscribe links work out of the box. The CLI finds it via `.data/local.json`.
 * The AWS stack never does this: there the key is the Secrets Manager secret `<prefix>/unsubscribe`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function unsubscribeDemoKeyPath(dataDir: string): string {
  return join(dataDir, 'unsubscribe-demo-key');
}

/**
 * Returns the settings with `UNSUBSCRIBE_SECRETS` filled in, and the demo key when one is in use.
 * `dryRun`: a key that is not stored yet is made in memory only (what `npm start` checks before it writes).
 */
export function applyUnsubscribeDemoKey(
  settings: Record<string, string | undefined>,
  dataDir: string,
  options: { dryRun?: boolean } = {},
): { settings: Record<string, string | undefined>; demoKey?: string } {
  if (settings.UNSUBSCRIBE_SECRETS?.trim() || settings.UNSUBSCRIBE_SECRET_ARN) return { settings };
  const file = unsubscribeDemoKeyPath(dataDir);
  let key = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (key === '' && options.dryRun) key = randomBytes(32).toString('base64url');
  if (key === '') {
    mkdirSync(dataDir, { recursive: true });
    key = randomBytes(32).toString('base64url');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
  }
  return { settings: { ...settings, UNSUBSCRIBE_SECRETS: key }, demoKey: key };
}
