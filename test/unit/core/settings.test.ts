/** The one whole-seconds parser, and the signature windows built from it: refused loudly when wrong. */
import { describe, expect, it } from 'vitest';
import { MAX_WINDOW_SECONDS, secondsFromSettings, windowFromSettings } from '../../../lambdas/core/settings.js';

describe('secondsFromSettings', () => {
  it('falls back when unset or blank', () => {
    expect(secondsFromSettings({}, 'X', 42)).toBe(42);
    expect(secondsFromSettings({ X: '  ' }, 'X', 42)).toBe(42);
  });

  it('reads whole seconds up to 48 hours', () => {
    expect(secondsFromSettings({ X: ' 90 ' }, 'X', 1)).toBe(90);
    expect(MAX_WINDOW_SECONDS).toBe(172_800);
    expect(secondsFromSettings({ X: '172800' }, 'X', 1)).toBe(172_800);
  });

  it.each(['0', '-5', '1.5', '1e3', '0x10', '010', '5m', 'abc', '172801', '99999999999999999999'])(
    'throws on %j, naming the variable',
    (value) => {
      expect(() => secondsFromSettings({ X_TOLERANCE_SECONDS: value }, 'X_TOLERANCE_SECONDS', 1)).toThrow(/X_TOLERANCE_SECONDS/);
    },
  );

  it('honours a caller-given range', () => {
    expect(secondsFromSettings({ X: '0' }, 'X', 1, { min: 0 })).toBe(0);
    expect(() => secondsFromSettings({ X: '11' }, 'X', 1, { max: 10 })).toThrow(/between 1 and 10/);
  });
});

describe('windowFromSettings', () => {
  it('uses the default age when unset, with at most 5 minutes of future skew', () => {
    expect(windowFromSettings({}, 'X', 300)).toEqual({ maxAgeMs: 300_000, maxFutureMs: 300_000 });
    expect(windowFromSettings({}, 'X', 9 * 3600)).toEqual({ maxAgeMs: 32_400_000, maxFutureMs: 300_000 });
  });

  it('a configured value sets the age; the future side is the same value capped at 5 minutes', () => {
    expect(windowFromSettings({ X: '90' }, 'X', 300)).toEqual({ maxAgeMs: 90_000, maxFutureMs: 90_000 });
    expect(windowFromSettings({ X: '172800' }, 'X', 300)).toEqual({ maxAgeMs: 172_800_000, maxFutureMs: 300_000 });
  });

  it('refuses a window over the 48 h cap', () => {
    expect(() => windowFromSettings({ X: '172801' }, 'X', 300)).toThrow(/X must be a whole number of seconds between 1 and 172800/);
  });
});
