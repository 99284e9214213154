/**
 * The SigningCertURL gate. The certificate decides whether the signature means anything, so the URL
 * it comes from must be AWS's SNS host for the topic's own region, and nothing that merely parses to
 * look like it. Host decisions are made on WHATWG `new URL()` output only; the raw-string checks
 * below only ever *add* rejections, for the spots where WHATWG quietly normalizes:
 * percent-decoding in the host (`amazonaws%2Ecom`), dropping a default `:443`, turning `\` into `/`,
 * stripping tabs and newlines, lower-casing. Finally the parsed URL must serialize back to exactly
 * the raw string, so what we validated is byte-for-byte what gets fetched.
 */
import { AuthenticationError } from '../../../errors.js';
import type { TopicArn } from './topic-arn.js';

const CERT_PATH = /^\/SimpleNotificationService-[0-9a-f]+\.pem$/;
// Printable ASCII minus the characters that smuggle structure past a parser.
const FORBIDDEN_CHARACTERS = /[^\x21-\x7e]|[\\%@?#]/;

/** Returns the URL to fetch (identical to `raw`) or throws AuthenticationError. */
export function assertSigningCertUrl(raw: string, topic: TopicArn): string {
  if (FORBIDDEN_CHARACTERS.test(raw)) reject('contains a forbidden character');
  // Any ':' after the scheme's own would be a port (there is no userinfo, query or fragment left).
  if (raw.indexOf(':', 'https:'.length) !== -1) reject('has a port');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    reject('is not a URL');
  }
  if (url.protocol !== 'https:') reject('is not https');
  if (url.username !== '' || url.password !== '') reject('has credentials');
  if (url.port !== '') reject('has a port');
  if (url.search !== '' || url.hash !== '') reject('has a query or fragment');
  if (url.hostname !== expectedHost(topic)) reject("is not the topic region's SNS host");
  if (!CERT_PATH.test(url.pathname)) reject('is not an SNS certificate path');
  if (url.href !== raw) reject('is not in canonical form');
  return url.href;
}

/** China regions sign from `.amazonaws.com.cn`; every other partition from `.amazonaws.com`. */
export function expectedHost(topic: TopicArn): string {
  const suffix = topic.partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `sns.${topic.region}.${suffix}`;
}

function reject(why: string): never {
  throw new AuthenticationError(`SigningCertURL ${why}`);
}
