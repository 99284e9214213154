/**
 * The one way a secret list is written (provider credentials, unsubscribe keys). The refusals are
 * security rules: a secret list that does not parse must never put the secret in the error, which
 * ends up in a log line or a start-up refusal.
 */
import { describe, expect, it } from 'vitest';
import { SecretListFormatError, splitSecretList } from '../../../lambdas/core/secret-list.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('splitSecretList', () => {
  it('reads a JSON array or a comma-separated list, trimming each entry and dropping blanks', () => {
    expect(splitSecretList('  ["one,two", " three ", ""]  ')).toEqual(['one,two', 'three']);
    expect(splitSecretList(' a , b ,, c ')).toEqual(['a', 'b', 'c']);
    expect(splitSecretList('[]')).toEqual([]);
    expect(splitSecretList('')).toEqual([]);
    expect(splitSecretList('  ')).toEqual([]);
    expect(splitSecretList(undefined)).toEqual([]);
  });

  it('splits a comma-separated list of multi-line PEM keys into whole keys', () => {
    const pem = (n: number) =>
      `-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE${n}\n-----END PUBLIC KEY-----`;
    expect(splitSecretList(`${pem(1)},\n${pem(2)}\n`)).toEqual([pem(1), pem(2)]);
  });

  it('refuses an array of anything but strings, naming the subject when given', () => {
    for (const value of ['["a", 1]', '[{"a":1}]', '[null]', '[["a"]]']) {
      expect(() => splitSecretList(value)).toThrow(new SecretListFormatError('must be a JSON array of strings'));
      expect(() => splitSecretList(value, 'unsubscribe secrets')).toThrow(
        new SecretListFormatError('unsubscribe secrets must be a JSON array of strings'),
      );
    }
  });

  it('a JSON object is not a list', () => {
    // It does not start with "[", so it is read as one comma-separated entry, never as JSON.
    expect(splitSecretList('{"a":"b"}')).toEqual(['{"a":"b"}']);
  });

  it('refuses broken JSON without quoting the value, unlike JSON.parse', () => {
    const value = `[${SECRET}`;
    let caught: unknown;
    try {
      splitSecretList(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SecretListFormatError);
    expect((caught as Error).name).toBe('SecretListFormatError');
    expect((caught as Error).message).toBe('starts with "[" but is not valid JSON (expected a JSON array of strings)');
    expect(String(caught)).not.toContain(SECRET.slice(6, 20));
    expect((caught as Error).cause).toBeUndefined();
    // What would leak without the rule: Node's own message quotes the input.
    expect(() => JSON.parse(value)).toThrow(SECRET.slice(0, 5));
  });
});
