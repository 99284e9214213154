/**
 * Shared-secret primitives for the providers that authenticate with a symmetric secret
 * (Standard Webhooks, the generic contract, Postmark's Basic credentials, Mailgun).
 */
import { createHash, createHmac } from 'node:crypto';
import { constantTimeEqual } from './request.js';

/**
 * HMAC-SHA256 over `prefix` followed by the raw body bytes, as the ASCII bytes of its base64 or hex
 * text. The body is fed as bytes, never decoded and re-encoded, so the MAC covers exactly what
 * arrived on the wire. Text, because every provider here sends its MAC as text: comparing text with
 * text replaces a strict decode of each presented entry (equal text means equal MAC, a garbled entry
 * simply does not match, only the canonical spelling is accepted), and a text digest is cheaper to
 * produce than a Buffer one.
 */
export function hmacSha256Text(key: Buffer, prefix: string, body: Buffer, encoding: 'base64' | 'hex'): Buffer {
  // A string is hashed as UTF-8 by default; naming the encoding costs a lookup per call.
  return Buffer.from(createHmac('sha256', key).update(prefix).update(body).digest(encoding), 'latin1');
}

/**
 * A presented MAC text as bytes for `matchesAny`. UTF-8, not latin1: latin1 keeps only the low byte
 * of each character, so `Ł` (U+0141) would pass for `A`; in UTF-8 any non-ASCII character becomes
 * bytes ≥ 0x80, which no base64 or hex text contains, so it can never match.
 */
export function presentedText(value: string): Buffer {
  return Buffer.from(value, 'utf8');
}

/**
 * `matchesAny([presented], the MAC text under each key)` for the formats that carry exactly one entry,
 * without the two arrays (measurably cheaper per request). Every key is tried, no early exit.
 */
export function matchesUnderAnyKey(
  presented: Buffer,
  keys: readonly Buffer[],
  prefix: string,
  body: Buffer,
  encoding: 'base64' | 'hex',
): boolean {
  let matched = false;
  for (const key of keys) {
    // Evaluate the comparison first so `||` cannot skip it once something has matched.
    matched = constantTimeEqual(hmacSha256Text(key, prefix, body, encoding), presented) || matched;
  }
  return matched;
}

export function sha256(value: Buffer | string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * True when any presented value equals any expected value. Every pair is compared in constant time
 * and the loop never exits early, so the timing says nothing about which expected value (which
 * rotated secret, which configured credential) matched, or how many were tried before it.
 * Values of a different length never match.
 */
export function matchesAny(presented: readonly Buffer[], expected: readonly Buffer[]): boolean {
  let matched = false;
  for (const candidate of presented) {
    for (const reference of expected) {
      // Evaluate the comparison first so `||` cannot skip it once something has matched.
      matched = constantTimeEqual(candidate, reference) || matched;
    }
  }
  return matched;
}

/**
 * Splits a signature header into the values tagged with `version`, for formats that carry a list
 * of `<version><delimiter><value>` entries, such as Standard Webhooks' `v1,<b64> v1,<b64> v1a,<b64>`.
 * Entries with another version are skipped (a sender may add schemes we do not speak); empty
 * entries from repeated separators are skipped too. Values are returned undecoded: decoding, and
 * deciding that a garbled value simply does not match, is the caller's job.
 * (An index walk rather than split/slice per entry: this runs on every request.)
 */
export function versionedValues(header: string, entrySeparator: string, delimiter: string, version: string): string[] {
  const values: string[] = [];
  const tag = version + delimiter;
  let start = 0;
  while (start <= header.length) {
    let end = header.indexOf(entrySeparator, start);
    if (end < 0) end = header.length;
    // `tag` at the entry start is the entry's first delimiter right after exactly `version`
    // (versions never contain the delimiter), so `v10,` and `v1a,` do not count as `v1`.
    if (end - start >= tag.length && header.startsWith(tag, start)) values.push(header.slice(start + tag.length, end));
    start = end + entrySeparator.length;
  }
  return values;
}
