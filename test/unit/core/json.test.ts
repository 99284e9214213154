import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import {
  arrayElementTexts,
  assertNoDuplicateKeys,
  objectMemberTexts,
  parseJsonObject,
  parseJsonStrict,
} from '../../../lambdas/core/json.js';
import { propertyRuns } from '../support/property-runs.js';

describe('parseJsonStrict', () => {
  it('parses ordinary JSON', () => {
    expect(parseJsonStrict('{"a":[1,{"b":"c"}],"d":"\\"}"}')).toEqual({ a: [1, { b: 'c' }], d: '"}' });
  });

  it.each([
    ['top level', '{"email":"a@x.com","email":"b@y.com"}'],
    ['nested', '{"data":{"to":"a","to":"b"}}'],
    ['inside an array element', '[{"sg_event_id":"1","sg_event_id":"2"}]'],
    ['escaped spelling of the same key', '{"email":"a","\\u0065mail":"b"}'],
    ['after a string containing braces and escaped quotes', '{"x":"}{\\",","k":1,"k":2}'],
  ])('rejects a duplicate key: %s', (_what, text) => {
    expect(() => parseJsonStrict(text)).toThrow(MalformedRequestError);
  });

  it('allows the same key in sibling objects and a value equal to a key', () => {
    expect(parseJsonStrict('[{"k":1},{"k":2},{"a":"k","k":"a"}]')).toHaveLength(3);
  });

  it('rejects invalid JSON with a 400-class error', () => {
    expect(() => parseJsonStrict('{"a":')).toThrow(MalformedRequestError);
  });

  it('parseJsonObject rejects non-objects', () => {
    expect(() => parseJsonObject('[1]')).toThrow(MalformedRequestError);
    expect(() => parseJsonObject('null')).toThrow(MalformedRequestError);
  });
});

describe('parseJsonStrict on large objects', () => {
  const many = (n: number, extra = '') => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}${extra}}`;

  it('accepts objects past the linear-scan size and nested objects after them', () => {
    expect(Object.keys(parseJsonStrict(many(40, ',"nested":{"k0":1,"k1":{"k0":2}}')) as object)).toHaveLength(41);
  });

  it('finds a duplicate key late in a large object, and in an object nested after the switch to a Set', () => {
    expect(() => parseJsonStrict(many(40, ',"k3":1'))).toThrow(MalformedRequestError);
    expect(() => parseJsonStrict(many(40, ',"nested":{"a":1,"a":2}'))).toThrow(MalformedRequestError);
    expect(() => parseJsonStrict(many(17, ',"k16":0'))).toThrow(MalformedRequestError);
  });

  it('stays fast on one hostile object with many keys', () => {
    const text = many(50_000);
    const started = performance.now();
    parseJsonStrict(text);
    // Quadratic scanning would take seconds here; linear takes tens of milliseconds.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

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
      { numRuns: propertyRuns(300) },
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
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('assertNoDuplicateKeys on text JSON.parse never saw (precondition violated)', () => {
  // Mailgun calls it on its own after parsing; called out of turn, it must fail, never loop or misreport.
  it.each([
    ['in an array', '["abc'],
    ['as a key', '{"a'],
    ['after an escaped quote', '{"k":"a\\"}'],
  ])('throws on an unterminated string %s', (_where, text) => {
    expect(() => assertNoDuplicateKeys(text)).toThrow(/unterminated string/);
  });

  it('still accepts a terminated string that ends in escaped backslashes', () => {
    expect(() => assertNoDuplicateKeys('{"a":"\\\\","b":1}')).not.toThrow();
  });
});
