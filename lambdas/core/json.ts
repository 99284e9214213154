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
  const value = parseJsonSyntax(text, what);
  assertNoDuplicateKeys(text, what);
  return value;
}

/**
 * The first half of parseJsonStrict: syntax only. For a provider whose signature sits inside the body
 * (Mailgun), which must parse before it can authenticate: it parses natively, checks the signature, and
 * only then runs `assertNoDuplicateKeys` on the same text, so the costlier scan is never spent on
 * unauthenticated input and a body with duplicate keys is still refused before anything acts on it.
 */
export function parseJsonSyntax(text: string, what = 'body'): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedRequestError(`${what} is not valid JSON`);
  }
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

/** Objects with more keys than this switch from a linear scan to a Set (linear is faster when small). */
const LINEAR_SCAN_MAX_KEYS = 16;

/**
 * Single pass over text that JSON.parse has already accepted, so only structure matters. The keys of
 * every open object live in one shared array (`starts` marks where each open object's keys begin;
 * -1 for arrays): small objects are checked by a linear scan, which beats allocating a Set per object;
 * an object that grows past LINEAR_SCAN_MAX_KEYS gets a Set, so a hostile body with one huge object
 * stays linear time.
 */
export function assertNoDuplicateKeys(text: string, what = 'body'): void {
  const starts: number[] = [];
  const sets: Array<Set<string> | undefined> = [];
  const keys: string[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) {
      starts.push(keys.length);
      sets.push(undefined);
      expectKey = true;
    } else if (c === OPEN_ARRAY) {
      starts.push(-1);
      sets.push(undefined);
      expectKey = false;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      const start = starts.pop()!;
      sets.pop();
      if (start >= 0) keys.length = start;
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = starts[starts.length - 1]! >= 0;
    } else if (c === QUOTE) {
      const end = endOfString(text, i);
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        // Escapes make "a" and "\u0061" the same key, so decode only when there is one.
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (seenInOpenObject(key, starts, sets, keys)) throw new MalformedRequestError(`${what} has a duplicate JSON key`);
        expectKey = false;
      }
      i = end;
    }
  }
}

/** Records `key` in the innermost open object; true when it was already there. */
function seenInOpenObject(key: string, starts: number[], sets: Array<Set<string> | undefined>, keys: string[]): boolean {
  const depth = starts.length - 1;
  const start = starts[depth]!;
  let set = sets[depth];
  if (set === undefined) {
    for (let k = start; k < keys.length; k++) if (keys[k] === key) return true;
    keys.push(key);
    if (keys.length - start <= LINEAR_SCAN_MAX_KEYS) return false;
    set = new Set(keys.slice(start));
    sets[depth] = set;
    return false;
  }
  if (set.has(key)) return true;
  set.add(key);
  return false;
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
