/**
 * Parsing of the non-secret, environment-style settings each provider module receives in
 * `ProviderDeps.settings`. These run once, in `create()`: a bad value is an operator mistake and must
 * fail loudly at startup (a plain Error, so the route answers 5xx and the provider retries once it is
 * fixed), never silently fall back to a default or to "accept everything".
 */
import { SYMMETRIC_FIVE_MINUTES, type Window } from './time.js';

/** Generous on purpose: a window wider than a day is a replay allowance, not clock skew. */
const MAX_TOLERANCE_SECONDS = 24 * 60 * 60;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/**
 * A symmetric freshness window (past and future alike) from a whole-seconds setting such as
 * `STANDARD_WEBHOOK_TOLERANCE_SECONDS`. Unset or blank means `fallback` (±5 minutes, what every
 * reference library uses). Anything other than 1..86400 whole seconds throws.
 */
export function windowFromSettings(
  settings: Readonly<Record<string, string | undefined>>,
  variable: string,
  fallback: Window = SYMMETRIC_FIVE_MINUTES,
): Window {
  const raw = settings[variable]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!POSITIVE_INTEGER.test(raw) || Number(raw) > MAX_TOLERANCE_SECONDS) {
    throw new Error(`${variable} must be a whole number of seconds between 1 and ${MAX_TOLERANCE_SECONDS}`);
  }
  const ms = Number(raw) * 1000;
  return { maxAgeMs: ms, maxFutureMs: ms };
}
