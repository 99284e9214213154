import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { parseJsonObject, parseJsonStrict } from '../../../lambdas/core/json.js';

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
  const many = (n: number, extra = '') =>
    `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}${extra}}`;

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
