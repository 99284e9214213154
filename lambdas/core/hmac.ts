/**
 * Shared-secret primitives for the providers that authenticate with a symmetric secret
 * (Standard Webhooks, the generic contract, Postmark's Basic credentials).
 */
import { createHash, createHmac } from 'node:crypto';
import { constantTimeEqual } from './request.js';

/**
 * HMAC-SHA256 over `prefix` followed by the raw body bytes. The body is fed as bytes, never
 * decoded and re-encoded, so the MAC covers exactly what arrived on the wire.
 */
export function hmacSha256(key: Buffer, prefix: string, body: Buffer): Buffer {
  return createHmac('sha256', key).update(prefix, 'utf8').update(body).digest();
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
 */
export function versionedValues(header: string, entrySeparator: string, delimiter: string, version: string): string[] {
  const values: string[] = [];
  for (const entry of header.split(entrySeparator)) {
    const at = entry.indexOf(delimiter);
    if (at < 0) continue;
    if (entry.slice(0, at) === version) values.push(entry.slice(at + delimiter.length));
  }
  return values;
}
