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
