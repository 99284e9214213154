/**
 * SNS verification settings, read once when the provider is built. A bad value fails the cold start
 * loudly instead of quietly falling back to a default the operator did not choose.
 */
import type { Window } from '../time.js';
import type { SnsSignatureVersion } from './verify.js';

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

export function readSnsSettings(settings: Readonly<Record<string, string | undefined>>): SnsSettings {
  const version = (settings[SNS_SETTING.minimumSignatureVersion] ?? '1').trim();
  if (version !== '1' && version !== '2') {
    throw new Error(`${SNS_SETTING.minimumSignatureVersion} must be "1" or "2"`);
  }
  const maxAge = seconds(settings, SNS_SETTING.maxAgeSeconds, DEFAULT_SNS_MAX_AGE_SECONDS);
  const maxFuture = seconds(settings, SNS_SETTING.maxFutureSeconds, DEFAULT_SNS_MAX_FUTURE_SECONDS);
  if (maxAge === 0) throw new Error(`${SNS_SETTING.maxAgeSeconds} must be positive`);
  return { minimumSignatureVersion: version, window: { maxAgeMs: maxAge * 1000, maxFutureMs: maxFuture * 1000 } };
}

function seconds(settings: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = settings[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]{1,7}$/.test(raw)) throw new Error(`${name} must be a whole number of seconds`);
  return Number(raw);
}
