/**
 * The runtime's environment contract: every variable the wiring and the local runtime read for
 * themselves, with its parser and default, and one number parser for all of them. (Provider
 * credentials and the settings each provider parses in its own module are checked by building the
 * provider: see wiring/provider-configuration.ts.)
 *
 * Numbers are plain decimals (`90`, `0.5`): no signs, exponents or hex, so `1e3` or `0x50` is refused
 * rather than read as something the operator did not write. Unset or blank means the default.
 */
import { DEFAULT_INBOX_TTL_DAYS, INBOX_TABLE, QUEUE_NAMES, SUPPRESSION_TABLE } from './tables.js';

export type Env = Readonly<Record<string, string | undefined>>;

interface NumberVariable {
  default: number;
  /** Completes "<NAME> must be …". */
  expected: string;
  min: number;
  /** `min` itself is refused (a positive number). */
  exclusiveMin?: boolean;
  max?: number;
  integer?: boolean;
}

export const NUMBER_VARIABLES = {
  INBOX_TTL_DAYS: { default: DEFAULT_INBOX_TTL_DAYS, expected: 'a non-negative number of days', min: 0 },
  SECRETS_CACHE_SECONDS: { default: 60, expected: 'a non-negative number of seconds', min: 0 },
  PORT: { default: 3000, expected: 'a whole number from 0 to 65535 (0 picks a free port)', min: 0, max: 65_535, integer: true },
} as const satisfies Record<string, NumberVariable>;

export type NumberVariableName = keyof typeof NUMBER_VARIABLES;

/** The one number parser: throws an Error naming the variable, what it must be, and what it got. */
export function parseNumber(name: string, raw: string | undefined, rule: NumberVariable): number {
  const value = raw?.trim();
  if (value === undefined || value === '') return rule.default;
  const n = Number(value);
  const ok =
    /^[0-9]+(?:\.[0-9]+)?$/.test(value) &&
    (rule.exclusiveMin ? n > rule.min : n >= rule.min) &&
    (rule.max === undefined || n <= rule.max) &&
    (!rule.integer || Number.isInteger(n));
  if (!ok) throw new Error(`${name} must be ${rule.expected}, got ${JSON.stringify(raw)}`);
  return n;
}

export function readNumber(env: Env, name: NumberVariableName): number {
  return parseNumber(name, env[name], NUMBER_VARIABLES[name]);
}

interface NameVariable {
  pattern: RegExp;
  expected: string;
}

/** Names the runtime creates or addresses resources under; unset means the default name. */
export const NAME_VARIABLES = {
  INBOX_TABLE: { pattern: /^[A-Za-z0-9_.-]{3,255}$/, expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)" },
  SUPPRESSION_TABLE: { pattern: /^[A-Za-z0-9_.-]{3,255}$/, expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)" },
  QUEUE_NAME: { pattern: /^[A-Za-z0-9_-]{1,76}$/, expected: "1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dlq suffix)" },
  DYNAMODB_ENDPOINT: { pattern: /^https?:\/\/[^\s/]+/, expected: 'an http(s) URL' },
  SQS_ENDPOINT: { pattern: /^https?:\/\/[^\s/]+/, expected: 'an http(s) URL' },
} as const satisfies Record<string, NameVariable>;

export const NAME_DEFAULTS = {
  INBOX_TABLE: INBOX_TABLE.defaultName,
  SUPPRESSION_TABLE: SUPPRESSION_TABLE.defaultName,
  QUEUE_NAME: QUEUE_NAMES.defaultName,
} as const;

/** Problems with the name variables that are set (blank endpoints and queue name count as unset). */
export function checkNames(env: Env): string[] {
  return Object.entries(NAME_VARIABLES).flatMap(([name, rule]) => {
    const value = env[name];
    const unset = value === undefined || (value === '' && name !== 'INBOX_TABLE' && name !== 'SUPPRESSION_TABLE');
    return unset || rule.pattern.test(value) ? [] : [`${name} must be ${rule.expected}, got ${JSON.stringify(value)}`];
  });
}
