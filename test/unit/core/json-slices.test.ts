import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElementTexts, objectMemberTexts } from '../../../lambdas/core/json-slices.js';

describe('arrayElementTexts', () => {
  it('returns each element exactly as written, without surrounding whitespace', () => {
    expect(arrayElementTexts(' [ 1 , "a,]\\"" ,{"k":[1,2]} ,\r\n null,[ ] ]\r\n')).toEqual([
      '1',
      '"a,]\\""',
      '{"k":[1,2]}',
      'null',
      '[ ]',
    ]);
  });

  it('returns nothing for an empty array', () => {
    expect(arrayElementTexts('[]')).toEqual([]);
    expect(arrayElementTexts(' [ \n ] ')).toEqual([]);
  });

  it('handles strings ending in escaped backslashes', () => {
    expect(arrayElementTexts('["a\\\\","b\\\\\\"c"]')).toEqual(['"a\\\\"', '"b\\\\\\"c"']);
  });

  it('refuses a top level that is not an array', () => {
    expect(() => arrayElementTexts('{"a":1}')).toThrow(/not the expected container/);
    expect(() => arrayElementTexts('"[1]"')).toThrow(/not the expected container/);
  });

  it('refuses unterminated input instead of looping (precondition violated)', () => {
    expect(() => arrayElementTexts('[1,2')).toThrow(/unterminated/);
    expect(() => arrayElementTexts('["abc')).toThrow(/unterminated/);
  });

  it('property: slices of any JSON array, in any formatting, parse back to its elements', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.constantFrom(undefined, 0, 1, 2, '\t', '\r\n  '), (values, indent) => {
        const text = JSON.stringify(values, null, indent as string | number | undefined);
        const slices = arrayElementTexts(text);
        expect(slices.map((s) => JSON.parse(s) as unknown)).toEqual(JSON.parse(text));
        // Exact substrings of the input, not re-serializations.
        for (const s of slices) expect(text.includes(s)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('objectMemberTexts', () => {
  it('returns each member value as written, keyed by decoded name', () => {
    const members = objectMemberTexts('{ "a" : 1.50 , "b\\u0063":{"x":"}"} ,"t":1e3,"s":"1" }');
    expect([...members]).toEqual([
      ['a', '1.50'],
      ['bc', '{"x":"}"}'],
      ['t', '1e3'],
      ['s', '"1"'],
    ]);
  });

  it('returns nothing for an empty object and refuses an array', () => {
    expect(objectMemberTexts('{}').size).toBe(0);
    expect(() => objectMemberTexts('[1]')).toThrow(/not the expected container/);
  });

  it('property: every member of any JSON object is found with its value', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(undefined, 2), (object, indent) => {
        const text = JSON.stringify(object, null, indent);
        const members = objectMemberTexts(text);
        expect(members.size).toBe(Object.keys(object).length);
        for (const [name, value] of members) {
          expect(JSON.parse(value)).toEqual((JSON.parse(text) as Record<string, unknown>)[name]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
