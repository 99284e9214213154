/** windowFromSettings: a freshness window from a whole-seconds setting, refused loudly when wrong. */
import { describe, expect, it } from 'vitest';
import { windowFromSettings } from '../../../lambdas/core/settings.js';
import { SYMMETRIC_FIVE_MINUTES } from '../../../lambdas/core/time.js';

describe('windowFromSettings', () => {
  it('falls back to ±5 minutes when unset or blank', () => {
    expect(windowFromSettings({}, 'X_TOLERANCE_SECONDS')).toEqual(SYMMETRIC_FIVE_MINUTES);
    expect(windowFromSettings({ X_TOLERANCE_SECONDS: '  ' }, 'X_TOLERANCE_SECONDS')).toEqual(SYMMETRIC_FIVE_MINUTES);
  });

  it('uses a given fallback', () => {
    const fallback = { maxAgeMs: 1, maxFutureMs: 2 };
    expect(windowFromSettings({}, 'X', fallback)).toBe(fallback);
  });

  it('turns whole seconds into a symmetric window in ms', () => {
    expect(windowFromSettings({ X: '90' }, 'X')).toEqual({ maxAgeMs: 90_000, maxFutureMs: 90_000 });
    expect(windowFromSettings({ X: ' 86400 ' }, 'X')).toEqual({ maxAgeMs: 86_400_000, maxFutureMs: 86_400_000 });
  });

  it.each(['0', '-5', '1.5', '1e3', '0x10', '010', '5m', 'abc', '86401'])('throws on %j, naming the variable', (value) => {
    expect(() => windowFromSettings({ X_TOLERANCE_SECONDS: value }, 'X_TOLERANCE_SECONDS')).toThrow(/X_TOLERANCE_SECONDS/);
  });
});
