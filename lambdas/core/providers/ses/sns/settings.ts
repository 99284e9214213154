/**
 * SNS verification settings, read once when the provider is built. A bad value fails the cold start
 * loudly instead of quietly falling back to a default the operator did not choose.
 */
import { DEFAULT_INBOX_TTL_DAYS, INBOX_TTL_RULE, INBOX_TTL_VARIABLE } from '../../../inbox-ttl.js';
import { numberFromSettings, type Settings, secondsFromSettings } from '../../../settings.js';
import type { Window } from '../../../time.js';
import type { SnsSignatureVersion } from './signature.js';

export const SNS_SETTING = {
  minimumSignatureVersion: 'SNS_MIN_SIGNATURE_VERSION',
  maxAgeSeconds: 'SNS_MAX_AGE_SECONDS',
  maxFutureSeconds: 'SNS_MAX_FUTURE_SECONDS',
} as const;

const DAY_SECONDS = 86_400;

/**
 * SNS signs the publish time and never re-signs a retry, and a message can wait far longer than SNS's
 * one-hour HTTPS retry horizon before it reaches us: on the SES feed (SQS keeps it for days, and a
 * campaign's backlog drains at the consumer's pace) or behind a throttled subscription. Refusing it for
 * its age would lose an authentic event, since SNS counts a 4xx as delivered. The only age that matters
 * is the inbox's: while the first copy's row exists, a replay is a duplicate. So the default is the
 * inbox TTL less one day (29 days with the default 30), and never below 3,900 s (the HTTPS retry
 * horizon plus 300 s of skew), which a very short TTL would otherwise undercut.
 */
export const MIN_DEFAULT_SNS_MAX_AGE_SECONDS = 3900;
export const DEFAULT_SNS_MAX_FUTURE_SECONDS = 300;

/** SNS_MAX_AGE_SECONDS's default for an inbox TTL, in whole seconds. */
export function defaultSnsMaxAgeSeconds(inboxTtlDays: number = DEFAULT_INBOX_TTL_DAYS): number {
  return Math.max(MIN_DEFAULT_SNS_MAX_AGE_SECONDS, Math.floor(inboxTtlDays * DAY_SECONDS) - DAY_SECONDS);
}

export interface SnsSettings {
  minimumSignatureVersion: SnsSignatureVersion;
  window: Window;
}

export function readSnsSettings(settings: Settings): SnsSettings {
  const version = (settings[SNS_SETTING.minimumSignatureVersion] ?? '1').trim();
  if (version !== '1' && version !== '2') {
    throw new Error(`${SNS_SETTING.minimumSignatureVersion} must be "1" or "2"`);
  }
  const inboxTtlDays = numberFromSettings(settings, INBOX_TTL_VARIABLE, INBOX_TTL_RULE);
  const maxAge = numberFromSettings(settings, SNS_SETTING.maxAgeSeconds, {
    default: defaultSnsMaxAgeSeconds(inboxTtlDays),
    expected: 'a whole number of seconds, at least 1',
    min: 1,
    integer: true,
  });
  assertBelowInboxTtl(maxAge, inboxTtlDays);
  // Clock skew only: 0..48 h, like every provider's.
  const maxFuture = secondsFromSettings(settings, SNS_SETTING.maxFutureSeconds, DEFAULT_SNS_MAX_FUTURE_SECONDS, {
    min: 0,
  });
  return { minimumSignatureVersion: version, window: { maxAgeMs: maxAge * 1000, maxFutureMs: maxFuture * 1000 } };
}

/**
 * A message as old as the inbox TTL may find its first copy's row gone, and would be admitted again:
 * the age limit must stay below it. One line, naming both variables and the way out.
 */
function assertBelowInboxTtl(maxAgeSeconds: number, inboxTtlDays: number): void {
  const ttlSeconds = inboxTtlDays * DAY_SECONDS;
  if (maxAgeSeconds < ttlSeconds) return;
  throw new Error(
    `${SNS_SETTING.maxAgeSeconds} is ${maxAgeSeconds} s, at or above ${INBOX_TTL_VARIABLE} (${inboxTtlDays} days = ${ttlSeconds} s): ` +
      `a replay older than its inbox row would be admitted again. Lower it, or unset it for the default (${INBOX_TTL_VARIABLE} less one day)`,
  );
}
