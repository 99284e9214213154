/**
 * Replays are harmless only while the inbox still holds the first copy. A signed request stays
 * acceptable until `signed time + maxAge`, and it may have been stored as early as
 * `signed time - maxFuture`, so a row must live longer than `maxAge + maxFuture` for every replay the
 * window admits to find it and be answered as a duplicate (an expired row counts as absent).
 * `npm start` and `cdk synth` both call this, so a configuration that breaks that promise never runs.
 */

import { INBOX_TTL_CONTEXT, INBOX_TTL_VARIABLE } from './inbox-ttl.js';
import type { ProviderDefinition } from './provider.js';
import { PROVIDERS } from './providers/index.js';
import { readSnsSettings } from './providers/ses/sns/settings.js';
import type { Settings } from './settings.js';

const DAY_MS = 86_400_000;
/** Slack for clocks that disagree between the instances that stored and that judge a row. */
export const INBOX_RETENTION_MARGIN_MS = 60 * 60 * 1000;

/**
 * Throws one line naming SNS_MAX_AGE_SECONDS and INBOX_TTL_DAYS when the SNS age limit (as these
 * settings configure it, its default derived from the TTL) is at or above the inbox TTL: such a
 * message may outlive its first copy's row and be admitted twice. Pure: no I/O. `npm start` and
 * `cdk synth` refuse to run such a configuration (assertInboxOutlivesWindows calls this first).
 */
export function assertSnsMaxAgeBelowInboxTtl(settings: Settings, inboxTtlDays: number): void {
  readSnsSettings({ ...settings, [INBOX_TTL_VARIABLE]: String(inboxTtlDays) });
}

/**
 * Throws, naming the variables involved, unless `inboxTtlDays` outlives every provider's signature
 * window (as these settings configure it) by at least the margin. Pure: no I/O.
 */
export function assertInboxOutlivesWindows(
  settings: Settings,
  inboxTtlDays: number,
  providers: readonly ProviderDefinition[] = PROVIDERS,
): void {
  assertSnsMaxAgeBelowInboxTtl(settings, inboxTtlDays);
  // The windows as the runtime will read them: SNS's default age depends on the TTL.
  const effective: Settings = { ...settings, [INBOX_TTL_VARIABLE]: String(inboxTtlDays) };
  const ttlMs = inboxTtlDays * DAY_MS;
  const tooLong: string[] = [];
  let neededMs = 0;
  for (const provider of providers) {
    const signature = provider.signatureWindow?.(effective);
    if (!signature) continue;
    const requiredMs = signature.window.maxAgeMs + signature.window.maxFutureMs + INBOX_RETENTION_MARGIN_MS;
    if (!Number.isFinite(ttlMs) || ttlMs < requiredMs) {
      tooLong.push(
        `${provider.name} (${signature.variables.join(', ')}: ${hours(signature.window.maxAgeMs + signature.window.maxFutureMs)})`,
      );
      neededMs = Math.max(neededMs, requiredMs);
    }
  }
  if (tooLong.length === 0) return;
  throw new Error(
    `${INBOX_TTL_VARIABLE} (context ${INBOX_TTL_CONTEXT}) is ${inboxTtlDays} days, shorter than the signature window ` +
      `plus ${hours(INBOX_RETENTION_MARGIN_MS)} of ${tooLong.join('; ')}: a replay inside the window would be admitted again. ` +
      `Raise ${INBOX_TTL_VARIABLE} to at least ${Math.ceil(neededMs / DAY_MS)} or narrow those windows.`,
  );
}

function hours(ms: number): string {
  return `${Math.round((ms / 3_600_000) * 100) / 100} h`;
}

/**
 * The smallest whole number of days `assertInboxOutlivesWindows` accepts with these settings (by
 * default, every window at its default): what the docs quote as the inbox TTL's minimum.
 */
export function minimumInboxTtlDays(
  settings: Settings = {},
  providers: readonly ProviderDefinition[] = PROVIDERS,
): number {
  for (let days = 1; days <= MAX_INBOX_TTL_SEARCH_DAYS; days++) {
    try {
      assertInboxOutlivesWindows(settings, days, providers);
      return days;
    } catch {
      // Too short: try a day more.
    }
  }
  throw new Error(`no inbox TTL up to ${MAX_INBOX_TTL_SEARCH_DAYS} days outlives these signature windows`);
}

const MAX_INBOX_TTL_SEARCH_DAYS = 3650;
