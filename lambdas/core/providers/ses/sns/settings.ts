/**
 * SNS verification settings, read once when the provider is built. A bad value fails the cold start
 * loudly instead of quietly falling back to a default the operator did not choose.
 */
import { secondsFromSettings, type Settings } from '../../../settings.js';
import type { Window } from '../../../time.js';
import type { SnsSignatureVersion } from './signature.js';

export const SNS_SETTING = {
  minimumSignatureVersion: 'SNS_MIN_SIGNATURE_VERSION',
  maxAgeSeconds: 'SNS_MAX_AGE_SECONDS',
  maxFutureSeconds: 'SNS_MAX_FUTURE_SECONDS',
} as const;

/**
 * SNS retries an HTTP delivery for at most 3600 s, and the retry reuses the original signed Timestamp,
 * so the age limit must exceed an hour or the last retries of a real outage would be refused as stale.
 * 300 s of slack on top covers clock skew and SNS's own jitter.
 */
export const DEFAULT_SNS_MAX_AGE_SECONDS = 3900;
export const DEFAULT_SNS_MAX_FUTURE_SECONDS = 300;

export interface SnsSettings {
  minimumSignatureVersion: SnsSignatureVersion;
  window: Window;
}

export function readSnsSettings(settings: Settings): SnsSettings {
  const version = (settings[SNS_SETTING.minimumSignatureVersion] ?? '1').trim();
  if (version !== '1' && version !== '2') {
    throw new Error(`${SNS_SETTING.minimumSignatureVersion} must be "1" or "2"`);
  }
  // The shared parser: 1 s..48 h for the age, 0..48 h for the skew allowance.
  const maxAge = secondsFromSettings(settings, SNS_SETTING.maxAgeSeconds, DEFAULT_SNS_MAX_AGE_SECONDS);
  const maxFuture = secondsFromSettings(settings, SNS_SETTING.maxFutureSeconds, DEFAULT_SNS_MAX_FUTURE_SECONDS, { min: 0 });
  return { minimumSignatureVersion: version, window: { maxAgeMs: maxAge * 1000, maxFutureMs: maxFuture * 1000 } };
}
