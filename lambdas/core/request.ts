/**
 * The transport-neutral request every provider verifies: the exact raw bytes plus lower-cased headers.
 * Both the API Gateway handler and the local HTTP front build one of these; providers never see either.
 */
import { timingSafeEqual } from 'node:crypto';
import { AuthenticationError, MalformedRequestError } from './errors.js';

export interface WebhookRequest {
  /** The body exactly as sent. Signatures are checked against these bytes, before any parsing. */
  readonly body: Buffer;
  /**
   * Header names lower-cased. A header sent twice arrives comma-joined (API Gateway v2 does this,
   * and the local front copies it), so a duplicated signature header fails to parse instead of
   * letting us pick one copy.
   */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The TCP peer as API Gateway saw it (`requestContext.http.sourceIp`). Never X-Forwarded-For. */
  readonly sourceIp?: string;
}

/** Builds a lower-cased header map; values given as arrays (Node's distinct headers) are comma-joined. */
export function lowerCaseHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const joined = typeof value === 'string' ? value : value.join(',');
    out[key] = out[key] === undefined ? joined : `${out[key]},${joined}`;
  }
  return out;
}

/** A header that must be present and non-empty; missing authentication material is an authentication failure. */
export function requireHeader(request: WebhookRequest, name: string): string {
  const value = request.headers[name.toLowerCase()];
  if (value === undefined || value.trim() === '') {
    throw new AuthenticationError(`missing ${name} header`);
  }
  return value;
}

/** Constant-time equality for secrets of any length (length itself is not secret here: it is public). */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const DIGITS = /^[0-9]{1,15}$/;

/**
 * Parses a Unix-seconds timestamp header strictly: digits only. `parseInt('1674087231abc')` is
 * 1674087231, which is how the Standard Webhooks reference library lets garbage through.
 */
export function parseUnixSeconds(value: string, what: string): number {
  if (!DIGITS.test(value)) throw new AuthenticationError(`${what} is not a Unix timestamp`);
  return Number(value);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** Strict base64 decode: Buffer.from(x, 'base64') silently skips garbage, which we never want for signatures. */
export function decodeBase64Strict(value: string, what: string): Buffer {
  if (value.length === 0 || !BASE64.test(value)) throw new AuthenticationError(`${what} is not base64`);
  return Buffer.from(value, 'base64');
}

export function decodeHexStrict(value: string, what: string, expectedBytes?: number): Buffer {
  if (!HEX.test(value)) throw new AuthenticationError(`${what} is not hex`);
  const bytes = Buffer.from(value, 'hex');
  if (expectedBytes !== undefined && bytes.length !== expectedBytes) {
    throw new AuthenticationError(`${what} has the wrong length`);
  }
  return bytes;
}

/** Body as UTF-8 text, refusing invalid UTF-8 rather than silently substituting U+FFFD. */
export function bodyText(body: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new MalformedRequestError('body is not valid UTF-8');
  }
}
