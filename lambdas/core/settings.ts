/**
 * Parsing of the non-secret, environment-style settings each provider module receives in
 * `ProviderDeps.settings`. These run once, in `create()`: a bad value is an operator mistake and must
 * fail loudly at startup (a plain Error, so the route answers 5xx and the provider retries once it is
 * fixed), never silently fall back to a default or to "accept everything".
 */
import { FIVE_MINUTES_MS, type Window } from './time.js';

export type Settings = Readonly<Record<string, string | undefined>>;

/**
 * A setting declared where it is parsed, so that what wires settings can iterate the declarations and
 * docs/configuration.md is generated from them (tools/env-table.ts).
 */
export interface SettingDeclaration {
  /** The environment variable, and its key in the settings the module receives. */
  readonly variable: string;
  /**
   * The CDK context key that sets it (a comma-separated string or a list of strings, passed joined
   * with commas). Absent: a deployment leaves it unset, so the module's default applies.
   */
  readonly contextKey?: string;
  /** What it changes, in one line; a trailing `(default …)` names the default. */
  readonly describe: string;
}

/**
 * The widest signature window anyone may configure. The longest documented sender retry horizon is
 * SendGrid's 24 h, so 48 h leaves room for an operator to be generous; anything wider is no longer a
 * retry allowance but a standing replay allowance. (SNS's age limit is the exception: SNS never
 * re-signs, so its bound is the inbox TTL instead; see providers/ses/sns/settings.ts.)
 */
export const MAX_WINDOW_SECONDS = 48 * 60 * 60;
/** How far in the future a signed timestamp may be: clock skew, never a retry horizon. */
export const MAX_FUTURE_SKEW_SECONDS = FIVE_MINUTES_MS / 1000;

export interface NumberRule {
  /** What unset or blank means. */
  default: number;
  /** Completes "<NAME> must be …, got …". */
  expected: string;
  min: number;
  /** `min` itself is refused (a positive number). */
  exclusiveMin?: boolean;
  max?: number;
  /** Written as a whole number: digits only, and no leading zero (`010` may be meant as octal). */
  integer?: boolean;
}

const DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;
const WHOLE_NUMBER = /^(?:0|[1-9][0-9]*)$/;

/**
 * The one number parser, for every numeric setting and environment variable. Numbers are plain
 * decimals (`90`, `0.5`): no signs, exponents or hex, so `1e3` or `0x50` is refused rather than read as
 * something the operator did not write. Unset or blank means the default; anything else out of the
 * rule throws a plain Error naming the variable, what it must be, and what it got.
 */
export function parseNumber(name: string, raw: string | undefined, rule: NumberRule): number {
  const value = raw?.trim();
  if (value === undefined || value === '') return rule.default;
  const n = Number(value);
  const ok =
    (rule.integer ? WHOLE_NUMBER : DECIMAL).test(value) &&
    (rule.exclusiveMin ? n > rule.min : n >= rule.min) &&
    (rule.max === undefined || n <= rule.max);
  if (!ok) throw new Error(`${name} must be ${rule.expected}, got ${JSON.stringify(raw)}`);
  return n;
}

/** parseNumber on `settings[variable]`. */
export function numberFromSettings(settings: Settings, variable: string, rule: NumberRule): number {
  return parseNumber(variable, settings[variable], rule);
}

/** Whole seconds within `min..max` (default 1 s..48 h); unset or blank means `fallback`. */
export function secondsFromSettings(
  settings: Settings,
  variable: string,
  fallback: number,
  { min = 1, max = MAX_WINDOW_SECONDS }: { min?: number; max?: number } = {},
): number {
  return numberFromSettings(settings, variable, {
    default: fallback,
    expected: `a whole number of seconds between ${min} and ${max}`,
    min,
    max,
    integer: true,
  });
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
