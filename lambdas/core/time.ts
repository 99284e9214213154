/** Time is injected everywhere in core: tests pin it, the handlers pass Date.now. */
import { MalformedRequestError, StaleRequestError } from './errors.js';

/** Epoch milliseconds. */
export type Clock = () => number;

export interface Window {
  /** How far in the past a signed timestamp may be, ms. */
  maxAgeMs: number;
  /** How far in the future (clock skew), ms. */
  maxFutureMs: number;
}

export const FIVE_MINUTES_MS = 5 * 60 * 1000;
export const SYMMETRIC_FIVE_MINUTES: Window = { maxAgeMs: FIVE_MINUTES_MS, maxFutureMs: FIVE_MINUTES_MS };

/** Throws StaleRequestError unless `signedAtMs` lies within the window around `nowMs`. */
export function assertFresh(signedAtMs: number, nowMs: number, window: Window): void {
  if (!Number.isFinite(signedAtMs)) throw new StaleRequestError('timestamp is not a number');
  if (signedAtMs < nowMs - window.maxAgeMs) throw new StaleRequestError('timestamp is too old');
  if (signedAtMs > nowMs + window.maxFutureMs) throw new StaleRequestError('timestamp is in the future');
}

// `2018-10-08T14:05:45 +0000` (SES docs), `2024-01-01T00:00:00.1234567Z` (Postmark), `...+01:00`.
const LENIENT_ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parses the timestamp shapes providers actually send into epoch ms:
 * ISO-8601 with or without `T`, a space before the offset, `+0000` or `+00:00`, any number of
 * fractional digits, and epoch numbers (seconds, or milliseconds when large enough to be).
 * A timezone-less ISO string is taken as UTC, which is what every provider here means.
 */
export function parseEventTime(value: unknown, what = 'event timestamp'): number {
  if (typeof value === 'number') return epochNumberToMs(value, what);
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (/^\d+(?:\.\d+)?$/.test(trimmed)) return epochNumberToMs(Number(trimmed), what);
    const m = LENIENT_ISO.exec(trimmed);
    if (m) {
      const [, date, clock, fraction, zone] = m;
      const millis = fraction ? `.${fraction.slice(0, 3).padEnd(3, '0')}` : '';
      const seconds = clock!.length === 5 ? `${clock}:00` : clock;
      let offset = 'Z';
      if (zone && zone.toUpperCase() !== 'Z')
        offset = zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
      const ms = Date.parse(`${date}T${seconds}${millis}${offset}`);
      if (Number.isFinite(ms)) return ms;
    }
  }
  throw new MalformedRequestError(`${what} is not a timestamp`);
}

// Epoch seconds stay below 1e11 until the year 5138; epoch ms passed 1e11 in 1973.
const MS_THRESHOLD = 1e11;

function epochNumberToMs(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) throw new MalformedRequestError(`${what} is not a timestamp`);
  return Math.round(value >= MS_THRESHOLD ? value : value * 1000);
}
