/** sameRecord (the one equality: by content, key order ignored) and clip (never half a surrogate pair). */
import { describe, expect, it } from 'vitest';
import { emptyRecord, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { clip, sameRecord } from '../../../lambdas/core/suppression/result.js';
import { EMAIL } from './support.js';

/** A record whose `evidence` field holds an arbitrary JSON value, so sameJson sees it as is. */
const holding = (value: unknown): SuppressionRecord =>
  ({ ...emptyRecord(EMAIL), evidence: value }) as unknown as SuppressionRecord;

describe('sameRecord', () => {
  const cases: Array<[string, unknown, unknown, boolean]> = [
    ['a string and an empty map', '', {}, false],
    ['an empty map and a string', {}, '', false],
    ['null and an empty map', null, {}, false],
    ['an empty map and null', {}, null, false],
    ['an empty map and an empty list', {}, [], false],
    ['an empty list and an empty map', [], {}, false],
    ['lists of different lengths', [1, 2], [1, 2, undefined], false],
    ['lists with one different element', [1, 2], [1, 3], false],
    ['equal lists', [1, { a: 2 }], [1, { a: 2 }], true],
    ['maps with one different value', { a: 1 }, { a: 2 }, false],
    ['maps with a key only on one side', { a: 1 }, { a: 1, b: 1 }, false],
    ['maps in another key order', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
    ['an absent key and an undefined one', { a: 1 }, { a: 1, b: undefined }, true],
  ];
  it.each(cases)('%s', (_name, a, b, same) => {
    expect(sameRecord(holding(a), holding(b))).toBe(same);
  });

  it('ignores fields that are not the record’s own (the adapter’s version)', () => {
    const a = { ...emptyRecord(EMAIL), version: 1 } as SuppressionRecord;
    const b = { ...emptyRecord(EMAIL), version: 2 } as SuppressionRecord;
    expect(sameRecord(a, b)).toBe(true);
  });
});

describe('clip', () => {
  it('returns a string of at most max units unchanged', () => {
    expect(clip('abc', 5)).toBe('abc');
    expect(clip('ab\ud83d', 3)).toBe('ab\ud83d');
  });
  it('cuts to max units', () => {
    expect(clip('abcdef', 2)).toBe('ab');
  });
  it('cuts before a high surrogate at the boundary, at both ends of the range', () => {
    expect(clip('a😀b', 2)).toBe('a');
    expect(clip('a\ud800bc', 2)).toBe('a');
    expect(clip('a\udbffbc', 2)).toBe('a');
    expect(clip('a\udc00bc', 2)).toBe('a\udc00');
  });
});
