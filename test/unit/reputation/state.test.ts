/**
 * The state machine at its edges: the minimum volume, each threshold reached exactly (at or above),
 * breach held by hysteresis until both 24-hour rates fall under warn, and the thresholds' settings.
 */
import { describe, expect, it } from 'vitest';
import {
  addCounts,
  crossedThreshold,
  formatRate,
  levelOf,
  nextState,
  type OutcomeCounts,
  type ReputationState,
  rates,
  DEFAULT_THRESHOLDS as T,
  thresholdsFromSettings,
} from '../../../lambdas/core/reputation/index.js';

const counts = (delivered: number, hardBounced = 0, complained = 0, softBounced = 0): OutcomeCounts => ({
  delivered,
  hardBounced,
  softBounced,
  complained,
});

describe('levelOf', () => {
  it('is ok below the minimum volume whatever the rates, and judged from exactly the minimum', () => {
    expect(levelOf(rates(counts(899, 100)), T)).toBe('ok'); // 999 attempts, 10 %
    expect(levelOf(rates(counts(900, 100)), T)).toBe('breach'); // 1,000 attempts
  });

  it('turns warn at exactly 2 % hard bounces or 0.05 % complaints, breach at exactly 4 % or 0.08 %', () => {
    expect(levelOf(rates(counts(9801, 199)), T)).toBe('ok'); // 1.99 %
    expect(levelOf(rates(counts(9800, 200)), T)).toBe('warn'); // 2 %
    expect(levelOf(rates(counts(9601, 399)), T)).toBe('warn'); // 3.99 %
    expect(levelOf(rates(counts(9600, 400)), T)).toBe('breach'); // 4 %
    expect(levelOf(rates(counts(9996, 0, 4)), T)).toBe('ok'); // 0.04 %
    expect(levelOf(rates(counts(9995, 0, 5)), T)).toBe('warn'); // 0.05 %
    expect(levelOf(rates(counts(9993, 0, 7)), T)).toBe('warn'); // 0.07 %
    expect(levelOf(rates(counts(9992, 0, 8)), T)).toBe('breach'); // 0.08 %
  });

  it('counts soft bounces and complaints in the attempts, not in the bounce rate', () => {
    const r = rates(counts(900, 40, 10, 50));
    expect(r).toEqual({ attempts: 1000, bounceRate: 0.04, complaintRate: 0.01 });
    expect(rates(counts(0))).toEqual({ attempts: 0, bounceRate: 0, complaintRate: 0 });
  });

  it('adds counts field by field (the adapter sums the hours of a window with it)', () => {
    expect(addCounts(counts(1, 2, 3, 4), counts(10, 20, 30, 40))).toEqual(counts(11, 22, 33, 44));
  });
});

describe('nextState: breach holds until both 24-hour rates fall under warn', () => {
  const cases: Array<[ReputationState | undefined, OutcomeCounts, ReputationState]> = [
    [undefined, counts(950, 50), 'breach'],
    ['breach', counts(9700, 300), 'breach'], // 3 %: under breach, still at or above warn
    ['breach', counts(9800, 200), 'breach'], // exactly warn
    ['breach', counts(9801, 199), 'ok'], // just under warn
    ['breach', counts(500, 50), 'breach'], // below the minimum volume, 9 %: held all the same
    ['breach', counts(0), 'ok'], // no mail in 24 h: both rates 0
    ['breach', counts(9995, 0, 5), 'breach'], // complaints at warn hold it too
    ['warn', counts(9700, 300), 'warn'],
    ['warn', counts(9801, 199), 'ok'], // warn has no memory
    ['ok', counts(9600, 400), 'breach'],
  ];
  it.each(cases)('%s with %o → %s', (previous, c, expected) => {
    const next = nextState(previous, rates(c), T);
    expect(next).toBe(expected);
    // Idempotent: judging the same rates again changes nothing (the CLI relies on it).
    expect(nextState(next, rates(c), T)).toBe(next);
  });

  it('names the threshold crossed', () => {
    expect(crossedThreshold('breach', rates(counts(950, 50)), T)).toBe('breach: hard bounces ≥ 4 %');
    expect(crossedThreshold('warn', rates(counts(9990, 0, 10)), T)).toBe('warn: complaints ≥ 0.05 %');
    expect(crossedThreshold('breach', rates(counts(9700, 300)), T)).toMatch(/held until both rates fall under warn/);
    expect(crossedThreshold('ok', rates(counts(9900, 100)), T)).toMatch(/^under warn/);
  });

  it('names ok under the minimum volume by the volume, from exactly the minimum by the warn line', () => {
    expect(crossedThreshold('ok', rates(counts(899, 100)), T)).toBe('fewer than 1000 attempts in 24 h');
    expect(crossedThreshold('ok', rates(counts(900, 100)), T)).toBe('under warn (bounces 2 %, complaints 0.05 %)');
  });

  it('names a rate exactly at its line as reaching it, and both when both do', () => {
    expect(crossedThreshold('warn', rates(counts(9800, 200)), T)).toBe('warn: hard bounces ≥ 2 %');
    expect(crossedThreshold('warn', rates(counts(9995, 0, 5)), T)).toBe('warn: complaints ≥ 0.05 %');
    expect(crossedThreshold('breach', rates(counts(9592, 400, 8)), T)).toBe(
      'breach: hard bounces ≥ 4 %, complaints ≥ 0.08 %',
    );
  });
});

describe('formatRate', () => {
  it('prints a fraction as a percentage with two decimals', () => {
    expect([0, 0.0005, 0.0476, 0.02, 1].map(formatRate)).toEqual(['0.00 %', '0.05 %', '4.76 %', '2.00 %', '100.00 %']);
  });
});

describe('thresholdsFromSettings', () => {
  it('defaults to warn 2 % / 0.05 %, breach 4 % / 0.08 %, 1,000 attempts', () => {
    expect(thresholdsFromSettings({})).toEqual({
      warn: { bounce: 0.02, complaint: 0.0005 },
      breach: { bounce: 0.04, complaint: 0.0008 },
      minimumVolume: 1000,
    });
  });

  it('reads percentages and refuses what does not parse, or a warn not under its breach', () => {
    expect(
      thresholdsFromSettings({ REPUTATION_BREACH_BOUNCE_PERCENT: '5', REPUTATION_MIN_VOLUME: '200' }),
    ).toMatchObject({
      breach: { bounce: 0.05 },
      minimumVolume: 200,
    });
    expect(() => thresholdsFromSettings({ REPUTATION_WARN_BOUNCE_PERCENT: '2%' })).toThrow(
      /REPUTATION_WARN_BOUNCE_PERCENT/,
    );
    expect(() => thresholdsFromSettings({ REPUTATION_WARN_BOUNCE_PERCENT: '4' })).toThrow(/must be below/);
    expect(() => thresholdsFromSettings({ REPUTATION_BREACH_COMPLAINT_PERCENT: '0.01' })).toThrow(/must be below/);
    expect(() => thresholdsFromSettings({ REPUTATION_MIN_VOLUME: '1.5' })).toThrow(/REPUTATION_MIN_VOLUME/);
  });

  it('says what the minimum volume must be, and refuses a warn equal to its breach', () => {
    expect(() => thresholdsFromSettings({ REPUTATION_MIN_VOLUME: '1.5' })).toThrow(
      new Error('REPUTATION_MIN_VOLUME must be a whole number of attempts, got "1.5"'),
    );
    expect(() => thresholdsFromSettings({ REPUTATION_WARN_COMPLAINT_PERCENT: '0.08' })).toThrow(
      new Error(
        'REPUTATION_WARN_COMPLAINT_PERCENT must be below REPUTATION_BREACH_COMPLAINT_PERCENT (warn comes before breach)',
      ),
    );
  });
});
