/**
 * The exact bytes SNS signs ([SNS-VERIFY] step 5): `key\nvalue\n` for each key of the Type's list,
 * in byte order, values as JSON-decoded strings, a trailing newline after the last value too.
 * Keys that are not on the list (UnsubscribeURL, MessageAttributes, a Subject on a confirmation)
 * are not covered by the signature, and nothing downstream may rely on them.
 */
import type { SnsEnvelope } from './envelope.js';

export const NOTIFICATION_SIGNED_KEYS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const;
export const CONFIRMATION_SIGNED_KEYS = [
  'Message',
  'MessageId',
  'SubscribeURL',
  'Timestamp',
  'Token',
  'TopicArn',
  'Type',
] as const;

export function stringToSign(envelope: SnsEnvelope): string {
  const fields = envelope as unknown as Readonly<Record<string, unknown>>;
  const keys = envelope.Type === 'Notification' ? NOTIFICATION_SIGNED_KEYS : CONFIRMATION_SIGNED_KEYS;
  let out = '';
  for (const key of keys) {
    // Only Subject is optional (present-but-empty is still signed); envelope.ts guarantees the rest.
    if (!Object.hasOwn(fields, key)) continue;
    out += `${key}\n${fields[key] as string}\n`;
  }
  return out;
}
