/**
 * The duplicate-key scanner and the member slicer, case by case: the exact refusal texts, which strings
 * count as keys (only those in key position of the innermost open object), the switch from a linear scan
 * to a Set in large objects, and member names that contain the characters the slicer looks for.
 */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import {
  assertNoDuplicateKeys,
  objectMemberTexts,
  parseJsonObject,
  parseJsonStrict,
  parseJsonSyntax,
} from '../../../lambdas/core/json.js';

/** `{"k0":0,...,"k<n-1>":n-1<extra>}` */
const many = (n: number, extra = '') => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}${extra}}`;

describe('refusal texts name what was read (the edge logs and returns them)', () => {
  it.each([
    ['parseJsonSyntax', () => parseJsonSyntax('{"a":'), 'body is not valid JSON'],
    ['parseJsonStrict, bad syntax', () => parseJsonStrict('{"a":'), 'body is not valid JSON'],
    ['parseJsonStrict, duplicate key', () => parseJsonStrict('{"a":1,"a":2}'), 'body has a duplicate JSON key'],
    ['parseJsonObject, not an object', () => parseJsonObject('[1]'), 'body is not a JSON object'],
    ['parseJsonObject, duplicate key', () => parseJsonObject('{"a":1,"a":2}'), 'body has a duplicate JSON key'],
    ['assertNoDuplicateKeys', () => assertNoDuplicateKeys('{"a":1,"a":2}'), 'body has a duplicate JSON key'],
  ])('%s says "body" by default', (_what, run, message) => {
    expect(run).toThrow(new MalformedRequestError(message));
  });

  it('uses the caller-given name instead', () => {
    expect(() => parseJsonSyntax('nope', 'SNS Message')).toThrow(
      new MalformedRequestError('SNS Message is not valid JSON'),
    );
    expect(() => parseJsonStrict('{"a":1,"a":1}', 'event')).toThrow(
      new MalformedRequestError('event has a duplicate JSON key'),
    );
    expect(() => parseJsonObject('"x"', 'data')).toThrow(new MalformedRequestError('data is not a JSON object'));
  });

  it('parseJsonSyntax alone lets duplicate keys through (the caller runs the scan after authenticating)', () => {
    expect(parseJsonSyntax('{"a":1,"a":2}')).toEqual({ a: 2 });
  });
});

describe('only strings in key position are keys', () => {
  it('array elements are values, however often they repeat, at any depth', () => {
    expect(parseJsonStrict('["x","x","x"]')).toEqual(['x', 'x', 'x']);
    expect(parseJsonStrict('{"a":["a","a","a"],"b":[["b","b"],"b"]}')).toEqual({
      a: ['a', 'a', 'a'],
      b: [['b', 'b'], 'b'],
    });
  });

  it('an array inside an object does not hide a later duplicate of that object', () => {
    expect(() => parseJsonStrict('{"a":["x","y"],"b":1,"a":2}')).toThrow(
      new MalformedRequestError('body has a duplicate JSON key'),
    );
  });

  // Precondition violated (JSON.parse never saw these texts), to show which strings the scanner decodes:
  // decoding a string it does not treat as a key would throw on the invalid escape.
  it.each([
    ['a top-level string', '"\\q"'],
    ['a string after a closed container', '[]"\\q"'],
    ['a string after a closed object', '{}"\\q"'],
  ])('never decodes %s', (_where, text) => {
    expect(() => assertNoDuplicateKeys(text)).not.toThrow();
  });

  it('decodes a key only when it holds an escape (a raw control character is compared as written)', () => {
    expect(() => assertNoDuplicateKeys('{"a\tb":1,"a\tc":2}')).not.toThrow();
    expect(() => assertNoDuplicateKeys('{"a\tb":1,"a\tb":2}')).toThrow(MalformedRequestError);
  });
});

describe('large objects (the Set past 16 keys)', () => {
  it('finds a duplicate of a key first seen after the switch to a Set', () => {
    expect(() => parseJsonStrict(many(25, ',"k20":0'))).toThrow(
      new MalformedRequestError('body has a duplicate JSON key'),
    );
  });

  it('keeps that Set across a nested array or object that closes in between', () => {
    expect(() => parseJsonStrict(many(25, ',"arr":[1],"k20":0'))).toThrow(MalformedRequestError);
    expect(() => parseJsonStrict(many(25, ',"obj":{"x":1},"k20":0'))).toThrow(MalformedRequestError);
  });

  it("drops a closed object's Set: a sibling object may reuse its keys", () => {
    const big = many(20);
    expect(parseJsonStrict(`[${big},{"k0":1,"k19":2}]`)).toHaveLength(2);
    expect(parseJsonStrict(`{"a":${big},"b":{"k0":1,"k19":2}}`)).toMatchObject({ b: { k0: 1, k19: 2 } });
  });

  it("does not count the enclosing object's keys in a nested object's Set", () => {
    const inner = Array.from({ length: 17 }, (_, i) => `"k${i}":${i}`).join(',');
    expect(parseJsonStrict(`{"outer":{${inner},"outer":1}}`)).toMatchObject({ outer: { outer: 1, k16: 16 } });
  });
});

describe('objectMemberTexts on member names holding a colon', () => {
  it('finds the colon after the name, not one inside it', () => {
    expect([...objectMemberTexts('{"a:":1,"b":":","c::":{"d:":2}}')]).toEqual([
      ['a:', '1'],
      ['b', '":"'],
      ['c::', '{"d:":2}'],
    ]);
  });
});
