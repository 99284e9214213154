/**
 * schemaChain: the ordered list of upgrade steps every table reader runs. Steps here append a letter,
 * so the result shows exactly which steps ran, in which order.
 */
import { describe, expect, it } from 'vitest';
import { FIRST_VERSION, type SchemaStep, schemaChain } from '../../../lambdas/core/schema-steps.js';

type Item = { path: string };
const step = (from: number, letter: string): SchemaStep<Item> => ({
  from,
  change: `adds ${letter}`,
  upgrade: (item) => ({ path: item.path + letter }),
});
// Built inside each test, never at collection time, so a mutant in schemaChain is live when it runs.
const abc = () => schemaChain('test', [step(1, 'a'), step(2, 'b'), step(3, 'c')]);

describe('schemaChain', () => {
  it('versions start at 1, and today is one past the last step', () => {
    expect(FIRST_VERSION).toBe(1);
    expect(abc().current).toBe(4);
    expect(schemaChain('empty', []).current).toBe(1);
  });

  it('runs every step from the item’s version on, in order, and none before it', () => {
    const chain = abc();
    expect(chain.upgrade({ path: '' }, 1)).toEqual({ path: 'abc' });
    expect(chain.upgrade({ path: '' }, 2)).toEqual({ path: 'bc' });
    expect(chain.upgrade({ path: '' }, 3)).toEqual({ path: 'c' });
  });

  it('returns an item already at today’s version, or written by newer code, as it is', () => {
    const chain = abc();
    const today = { path: 'x' };
    expect(chain.upgrade(today, 4)).toBe(today);
    expect(chain.upgrade(today, 9)).toBe(today);
    expect(schemaChain('empty', []).upgrade(today, 1)).toBe(today);
  });

  it('tells a newer version from today’s and older ones', () => {
    const chain = abc();
    expect([1, 3, 4, 5, 40].map((v) => chain.isNewer(v))).toEqual([false, false, false, true, true]);
  });

  it('refuses what is not a version', () => {
    const chain = abc();
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => chain.upgrade({ path: '' }, bad)).toThrow(`test schema version ${bad} is not a version`);
  });

  it('refuses a list out of order: two changes that both added a step from the same version', () => {
    expect(() => schemaChain('suppression', [step(1, 'a'), step(2, 'b'), step(2, 'c')])).toThrow(
      'suppression schema step 3 reads version 2, expected 3: keep the steps in order, one per version',
    );
    expect(() => schemaChain('inbox', [step(2, 'a')])).toThrow('inbox schema step 1 reads version 2, expected 1');
    expect(() => schemaChain('inbox', [step(1, 'a'), step(3, 'b')])).toThrow('step 2 reads version 3, expected 2');
  });
});
