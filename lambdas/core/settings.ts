/**
 * Parsing of the non-secret, environment-style settings each provider module receives in
 * `ProviderDeps.settings`. These run once, in `create()`: a bad value is an operator mistake and must
 * fail loudly at startup (a plain Error, so the route answers 5xx and the provider retries once it is
 * fixed), never silently fall back to a default or to "accept everything".
 */
import { FIVE_MINUTES_MS, type Window } from './time.js';

export type Settings = Readonly<Record<string, string | undefined>>;

/**
 * The widest signature window anyone may configure. The longest documented sender retry horizon is
 * SendGrid's 24 h, so 48 h leaves room for an operator to be generous; anything wider is no longer a
 * retry allowance but a standing replay allowance.
 */
export const MAX_WINDOW_SECONDS = 48 * 60 * 60;
/** How far in the future a signed timestamp may be: clock skew, never a retry horizon. */
export const MAX_FUTURE_SKEW_SECONDS = FIVE_MINUTES_MS / 1000;

const WHOLE_NUMBER = /^(?:0|[1-9][0-9]*)$/;

/**
 * The one whole-seconds parser for settings. Unset or blank means `fallback`; anything that is not a
 * plain decimal integer within `min..max` throws with the variable's name.
 */
export function secondsFromSettings(
  settings: Settings,
  variable: string,
  fallback: number,
  { min = 1, max = MAX_WINDOW_SECONDS }: { min?: number; max?: number } = {},
): number {
  const raw = settings[variable]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!WHOLE_NUMBER.test(raw) || value < min || value > max) {
    throw new Error(`${variable} must be a whole number of seconds between ${min} and ${max}`);
  }
  return value;
}

/**
 * A signature freshness window from a whole-seconds setting such as `MAILGUN_TOLERANCE_SECONDS`:
 * how old a signed timestamp may be (1 s to 48 h; unset means `defaultSeconds`). The future side is
 * clock skew only, so it is the same number capped at 5 minutes: a window sized for a sender that
 * retries for a day must not also accept timestamps a day ahead.
 */
export function windowFromSettings(settings: Settings, variable: string, defaultSeconds: number): Window {
  const seconds = secondsFromSettings(settings, variable, defaultSeconds);
  return { maxAgeMs: seconds * 1000, maxFutureMs: Math.min(seconds, MAX_FUTURE_SKEW_SECONDS) * 1000 };
}
