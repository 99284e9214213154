/** The policy guard every entry point calls, and the policy read from settings: exact bounds and messages. */
import { describe, expect, it } from 'vitest';
import { policyFromSettings, type RatchetPolicy } from '../../../lambdas/core/suppression/index.js';
import { assertPolicy } from '../../../lambdas/core/suppression/policy.js';

const ok: RatchetPolicy = { softBounceLimit: 3, softBounceWindowMs: 1000 };
const LIMIT = new RangeError('softBounceLimit must be a whole number between 1 and 20');
const WINDOW = new RangeError('softBounceWindowMs must be a non-negative number of milliseconds');
const CAP = new RangeError('evidencePerKind must be a positive whole number');
const ALIASES = new TypeError('topicAliases must be a Map (see parseTopicAliases)');

describe('assertPolicy', () => {
  const refused: Array<[string, Record<string, unknown>, Error]> = [
    ['a limit of 0', { softBounceLimit: 0 }, LIMIT],
    ['a limit of 21', { softBounceLimit: 21 }, LIMIT],
    ['a fractional limit', { softBounceLimit: 1.5 }, LIMIT],
    ['a negative window', { softBounceWindowMs: -1 }, WINDOW],
    ['a NaN window', { softBounceWindowMs: Number.NaN }, WINDOW],
    ['an infinite window', { softBounceWindowMs: Infinity }, WINDOW],
    ['a cap of 0', { evidencePerKind: 0 }, CAP],
    ['a fractional cap', { evidencePerKind: 2.5 }, CAP],
    ['aliases that are not a Map', { topicAliases: { news: 'n' } }, ALIASES],
  ];
  it.each(refused)('refuses %s', (_name, overrides, error) => {
    expect(() => assertPolicy({ ...ok, ...overrides } as RatchetPolicy)).toThrow(error);
    expect(() => assertPolicy({ ...ok, ...overrides } as RatchetPolicy)).toThrow(error.constructor as typeof Error);
  });

  const accepted: Array<[string, Partial<RatchetPolicy>]> = [
    ['a limit of 1', { softBounceLimit: 1 }],
    ['a limit of 20', { softBounceLimit: 20 }],
    ['a zero window', { softBounceWindowMs: 0 }],
    ['a cap of 1', { evidencePerKind: 1 }],
    ['a Map of aliases', { topicAliases: new Map([['news', 'n']]) }],
  ];
  it.each(accepted)('accepts %s', (_name, overrides) => {
    expect(() => assertPolicy({ ...ok, ...overrides })).not.toThrow();
  });
});

describe('policyFromSettings', () => {
  it('names the expected range when the limit does not parse', () => {
    expect(() => policyFromSettings({ SOFT_BOUNCE_LIMIT: 'x' })).toThrow(
      new Error('SOFT_BOUNCE_LIMIT must be a whole number between 1 and 20, got "x"'),
    );
  });
  it('carries topic aliases only when some are set', () => {
    expect(
      policyFromSettings({ SOFT_BOUNCE_LIMIT: '2', SOFT_BOUNCE_WINDOW_DAYS: '1', TOPIC_ALIASES: 'news=n' }),
    ).toEqual({
      softBounceLimit: 2,
      softBounceWindowMs: 86_400_000,
      topicAliases: new Map([['news', 'n']]),
    });
    expect(Object.keys(policyFromSettings({}))).toEqual(['softBounceLimit', 'softBounceWindowMs']);
  });
});
