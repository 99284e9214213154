/**
 * Readers for single CDK context values. Context given on the command line always arrives as a
 * string; from cdk.json it may be a number, boolean or array: every reader accepts both, and a value
 * that does not parse throws with the key's name rather than letting a default deploy silently.
 */
export type Getter = (key: string) => unknown;

/**
 * A deployment setting (a CDK context key or a construct prop) that does not parse or would lose
 * events. bin/app.ts prints its message alone, one line per problem, with no stack trace: it is the
 * operator's to fix, not a bug.
 */
export class ContextError extends Error {
  override name = 'ContextError';
}

export function isUnset(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export function positiveNumber(get: Getter, key: string): number | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (!Number.isFinite(n) || n <= 0)
    throw new ContextError(`context ${key} must be a positive number, got ${JSON.stringify(value)}`);
  return n;
}

export function positiveInteger(get: Getter, key: string): number | undefined {
  const n = positiveNumber(get, key);
  if (n !== undefined && !Number.isInteger(n))
    throw new ContextError(`context ${key} must be a whole number, got ${n}`);
  return n;
}

export function boolean(get: Getter, key: string): boolean | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ContextError(`context ${key} must be true or false, got ${JSON.stringify(value)}`);
}

/** A comma-separated string or an array of strings; blanks dropped. */
export function list(get: Getter, key: string): string[] | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!items || !items.every((item): item is string => typeof item === 'string')) {
    throw new ContextError(`context ${key} must be a comma-separated string or an array of strings`);
  }
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** One of a fixed set of words. */
export function oneOf<T extends string>(get: Getter, key: string, allowed: readonly T[]): T | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  const text = typeof value === 'string' ? value.trim() : value;
  if (typeof text !== 'string' || !(allowed as readonly string[]).includes(text)) {
    throw new ContextError(`context ${key} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return text as T;
}

/** A plausible single address; SNS checks the rest by mailing a confirmation link. */
export function email(get: Getter, key: string): string | undefined {
  const value = get(key);
  if (isUnset(value)) return undefined;
  if (typeof value !== 'string' || !/^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(value.trim())) {
    throw new ContextError(`context ${key} must be one email address, got ${JSON.stringify(value)}`);
  }
  return value.trim();
}
