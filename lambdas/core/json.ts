/**
 * JSON parsing for signed bodies. `JSON.parse` keeps the *last* of two duplicate keys, while another
 * parser (a provider's, a proxy's, a later audit tool's) may keep the first: a signed body with
 * `{"email":"victim@x","email":"attacker@y"}` can then mean two things. We refuse such bodies outright.
 */
import { MalformedRequestError } from './errors.js';

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Parses JSON and throws MalformedRequestError on a syntax error or a duplicate key at any depth. */
export function parseJsonStrict(text: string, what = 'body'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedRequestError(`${what} is not valid JSON`);
  }
  assertNoDuplicateKeys(text, what);
  return value;
}

/** Like parseJsonStrict, but the top level must be an object. */
export function parseJsonObject(text: string, what = 'body'): Record<string, unknown> {
  const value = parseJsonStrict(text, what);
  if (!isRecord(value)) throw new MalformedRequestError(`${what} is not a JSON object`);
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Single pass over text that JSON.parse has already accepted, so only structure matters:
 * a stack of key sets (null for arrays) and whether the next string is a key.
 */
function assertNoDuplicateKeys(text: string, what: string): void {
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === OPEN_ARRAY) {
      stack.push(null);
      expectKey = false;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = stack[stack.length - 1] instanceof Set;
    } else if (c === QUOTE) {
      const end = endOfString(text, i);
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        // Escapes make "a" and "\u0061" the same key, so decode only when there is one.
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const keys = stack[stack.length - 1] as Set<string>;
        if (keys.has(key)) throw new MalformedRequestError(`${what} has a duplicate JSON key`);
        keys.add(key);
        expectKey = false;
      }
      i = end;
    }
  }
}

/** Index of the closing quote of the string that opens at `start`. */
function endOfString(text: string, start: number): number {
  let i = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
    i = text.indexOf('"', i + 1);
  }
}
