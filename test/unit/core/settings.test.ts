/** The one number parser, the whole-seconds settings and the signature windows built on it: refused loudly when wrong. */
import { describe, expect, it } from 'vitest';
import {
  MAX_WINDOW_SECONDS,
  numberFromSettings,
  parseNumber,
  secondsFromSettings,
  windowFromSettings,
} from '../../../lambdas/core/settings.js';

describe('the one number parser', () => {
  const rule = { default: 7, expected: 'a number from 1 to 10', min: 1, max: 10 };

  it('reads plain decimals, and unset or blank as the default', () => {
    expect(parseNumber('X', undefined, rule)).toBe(7);
    expect(parseNumber('X', '  ', rule)).toBe(7);
    expect(parseNumber('X', ' 2.5 ', rule)).toBe(2.5);
    expect(parseNumber('X', '10', rule)).toBe(10);
    expect(parseNumber('X', '1', rule)).toBe(1);
  });

  it.each(['0.5', '11', '-1', '1e1', '0x5', 'five', '5 minutes', 'Infinity', 'NaN', '.5', '5.'])(
    'refuses %j, naming the variable',
    (raw) => {
      expect(() => parseNumber('X', raw, rule)).toThrow(`X must be a number from 1 to 10, got ${JSON.stringify(raw)}`);
    },
  );

  it('honours an exclusive minimum and an open maximum', () => {
    const positive = { default: 1, expected: 'a positive number', min: 0, exclusiveMin: true };
    expect(parseNumber('Y', '0.001', positive)).toBe(0.001);
    expect(parseNumber('Y', '1000000', positive)).toBe(1_000_000);
    expect(() => parseNumber('Y', '0', positive)).toThrow('Y must be a positive number, got "0"');
  });

  it.each(['3.0', '03', '00', '+3'])('refuses %j where a whole number is expected', (raw) => {
    expect(() => parseNumber('Z', raw, { default: 1, expected: 'a whole number', min: 0, integer: true })).toThrow(
      /^Z must be a whole number, got/,
    );
  });

  it('reads a setting by its name', () => {
    expect(numberFromSettings({ N: ' 4 ' }, 'N', { default: 0, expected: 'n', min: 0 })).toBe(4);
    expect(numberFromSettings({}, 'N', { default: 9, expected: 'n', min: 0 })).toBe(9);
  });
});

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
      expect(() => secondsFromSettings({ X_TOLERANCE_SECONDS: value }, 'X_TOLERANCE_SECONDS', 1)).toThrow(
        /X_TOLERANCE_SECONDS/,
      );
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
    expect(() => windowFromSettings({ X: '172801' }, 'X', 300)).toThrow(
      'X must be a whole number of seconds between 1 and 172800, got "172801"',
    );
  });
});
