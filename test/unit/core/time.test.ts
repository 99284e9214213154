import { describe, expect, it } from 'vitest';
import { MalformedRequestError, StaleRequestError } from '../../../lambdas/core/errors.js';
import { assertFresh, parseEventTime } from '../../../lambdas/core/time.js';

describe('parseEventTime', () => {
  it.each([
    ['2018-10-08T14:05:45 +0000', Date.UTC(2018, 9, 8, 14, 5, 45)],
    ['2018-10-08T14:05:45.123Z', Date.UTC(2018, 9, 8, 14, 5, 45, 123)],
    ['2024-01-02T03:04:05.1234567Z', Date.UTC(2024, 0, 2, 3, 4, 5, 123)],
    ['2024-01-02T05:04:05+02:00', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-01-02 03:04:05', Date.UTC(2024, 0, 2, 3, 4, 5)],
    [1529692198.641821, 1529692198642],
    ['1600112492', 1600112492000],
    [1591726752372, 1591726752372],
  ])('%s', (input, expected) => {
    expect(parseEventTime(input)).toBe(expected);
  });

  it.each([['yesterday'], [''], [null], [-5], ['2024-13-45T99:99:99Z']])('rejects %s', (input) => {
    expect(() => parseEventTime(input)).toThrow(MalformedRequestError);
  });
});

describe('assertFresh', () => {
  const window = { maxAgeMs: 300_000, maxFutureMs: 60_000 };
  const now = 1_700_000_000_000;
  it('accepts the edges of the window', () => {
    expect(() => assertFresh(now - 300_000, now, window)).not.toThrow();
    expect(() => assertFresh(now + 60_000, now, window)).not.toThrow();
  });
  it('rejects stale and future timestamps', () => {
    expect(() => assertFresh(now - 300_001, now, window)).toThrow(StaleRequestError);
    expect(() => assertFresh(now + 60_001, now, window)).toThrow(StaleRequestError);
    expect(() => assertFresh(Number.NaN, now, window)).toThrow(StaleRequestError);
  });
});

describe('parseEventTime, shape by shape', () => {
  it.each([
    ['epoch seconds with surrounding whitespace', ' 1600112492 ', 1600112492000],
    ['epoch seconds as text, several fraction digits', '1529692198.641821', 1529692198642],
    ['epoch zero', 0, 0],
    ['epoch zero as text', '0', 0],
    ['exactly 1e11 is already milliseconds', 1e11, 1e11],
    ['just under 1e11 is seconds', 99_999_999_999, 99_999_999_999_000],
    ['minutes without seconds', '2024-01-02T03:04Z', Date.UTC(2024, 0, 2, 3, 4)],
    ['minutes without seconds, no zone', '2024-01-02 03:04', Date.UTC(2024, 0, 2, 3, 4)],
    ['an offset without a colon', '2024-01-02T05:04:05+0200', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['a negative offset without a colon', '2024-01-01T22:04:05 -0500', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['a lower-case z', '2024-01-02t03:04:05.5z', Date.UTC(2024, 0, 2, 3, 4, 5, 500)],
  ])('%s', (_shape, input, expected) => {
    expect(parseEventTime(input)).toBe(expected);
  });

  it('reads a timestamp without a zone as UTC whatever the host time zone is', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      expect(parseEventTime('2024-01-02T03:04:05')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      expect(parseEventTime('2024-01-02 03:04:05.250')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 250));
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('refuses, naming the field, with "event timestamp" by default', () => {
    expect(() => parseEventTime('yesterday')).toThrow(new MalformedRequestError('event timestamp is not a timestamp'));
    expect(() => parseEventTime(-1)).toThrow(new MalformedRequestError('event timestamp is not a timestamp'));
    expect(() => parseEventTime(Number.POSITIVE_INFINITY, 'Timestamp')).toThrow(
      new MalformedRequestError('Timestamp is not a timestamp'),
    );
    expect(() => parseEventTime('2024-13-45T99:99:99Z', 'occurred_at')).toThrow(
      new MalformedRequestError('occurred_at is not a timestamp'),
    );
  });
});

describe('assertFresh refusal texts', () => {
  const window = { maxAgeMs: 1_000, maxFutureMs: 1_000 };
  it.each([
    [Number.NaN, 'timestamp is not a number'],
    [8_999, 'timestamp is too old'],
    [11_001, 'timestamp is in the future'],
  ])('%d at now 10000 → %s', (signedAtMs, message) => {
    expect(() => assertFresh(signedAtMs, 10_000, window)).toThrow(new StaleRequestError(message));
  });
});
